// What a compile run came to, in counts: the line `exactune compile` and a
// sweep without a GPU print after compiling. `distinct_code` counts the GPU
// kernels whose machine code (compile/cubin_resources.hpp: kernel_code) no
// other kernel of the same target has: below `kernels`, some variants compile
// to the same instructions at some size, which a compile could skip.
#pragma once
#include <cstddef>
#include <vector>

#include <exactune/compile_request.hpp>

namespace exactune {

struct CompileSummary {
  std::size_t kernels = 0;
  std::size_t failures = 0;
  std::size_t with_spills = 0;
  std::size_t cache_hits = 0;
  double compile_ms_total = 0;
  int max_registers = 0;
  std::size_t gpu_kernels = 0;    // compiled for a GPU arch, with machine code found in the cubin
  std::size_t distinct_code = 0;  // of those, distinct (target, machine code)
};

CompileSummary summarize(const std::vector<CompileOutcome>& outcomes);

}  // namespace exactune
