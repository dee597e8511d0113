#include "compile/compile_summary.hpp"

#include <algorithm>

namespace exactune {

CompileSummary summarize(const std::vector<CompileOutcome>& outcomes) {
  CompileSummary s;
  for (const CompileOutcome& o : outcomes) {
    ++s.kernels;
    if (!o.ok) {
      ++s.failures;
      continue;
    }
    if (o.kernel.resources.spills()) ++s.with_spills;
    if (o.cache_hit) ++s.cache_hits;
    s.compile_ms_total += o.compile_ms;
    s.max_registers = std::max(s.max_registers, o.kernel.resources.registers);
  }
  return s;
}

}  // namespace exactune
