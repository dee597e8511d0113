// The compile stage: turns requests into kernels, in parallel, through the
// on-disk cache. GPU targets (sm_*) go to NVRTC (nvrtc_compiler), any other to
// the compiler registered for it (target_compiler.hpp: "host" to the host C++
// compiler of compile/host/, where the program links it). A failed compile is
// an outcome with its log, never an exception: one broken variant does not
// stop the others.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <exactune/compile_request.hpp>

#include "compile/compile_cache.hpp"

namespace exactune {

struct CompileProgress {
  std::size_t done = 0;
  std::size_t total = 0;
  const CompileOutcome* last = nullptr;  // the outcome just made
  std::size_t index = 0;                 // its request's place among compile_all's requests
};

// The most kernels one NVRTC program holds (compiler.cpp says why): a caller
// that feeds compile_all in batches keeps every job busy with batches of at
// least two programs a job.
inline constexpr std::size_t kMaxKernelsPerProgram = 16;

struct CompileOptions {
  int jobs = 0;  // 0: one per hardware thread
  std::function<void(const CompileProgress&)> on_progress;
};

std::vector<CompileOutcome> compile_all(const std::vector<CompileRequest>& requests, const CompileCache& cache,
                                        const CompileOptions& options = {});

// A binary made in memory, not through the cache (a test's cubin, a garbage
// image), with its id: the content hash of `bytes`.
std::shared_ptr<const Binary> binary_in_memory(std::string bytes);

}  // namespace exactune
