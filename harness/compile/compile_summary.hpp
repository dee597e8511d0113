// What a compile run came to, in counts: the line `exactune compile` and a
// sweep without a GPU print after compiling.
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
};

CompileSummary summarize(const std::vector<CompileOutcome>& outcomes);

}  // namespace exactune
