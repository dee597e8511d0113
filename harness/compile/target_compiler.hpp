// Compilers of the targets NVRTC does not serve, by target name: the host's C++
// compiler (compile/host/) registers itself for "host". compile_all hands such
// a compiler all its requests at once. A compiler is registered by its own
// library when the program starts, so that a program that does not link it
// (the runtime, which only launches GPU kernels) carries none of its code.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <exactune/compile_request.hpp>
#include <exactune/compiled_kernel.hpp>

#include "compile/compile_cache.hpp"

namespace exactune {

class TargetCompiler {
 public:
  virtual ~TargetCompiler() = default;
  virtual std::string target() const = 0;
  // One outcome per request, in order; a failed compile is an outcome with its
  // log. `jobs`: parallel compiles at most.
  virtual std::vector<CompileOutcome> compile(const std::vector<CompileRequest>& requests, const CompileCache& cache,
                                              int jobs) const = 0;
};

// Whether NVRTC compiles for `target` ("sm_90", "sm_100a", ...).
bool is_nvrtc_target(const std::string& target);

// Registers `compiler` for its target; throws exactune::error when one is
// registered for it already. Returns true, for a static initialiser.
bool register_target_compiler(std::unique_ptr<TargetCompiler> compiler);
// The compiler registered for `target`, or nullptr.
const TargetCompiler* target_compiler(const std::string& target);

}  // namespace exactune
