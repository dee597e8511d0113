#include "compile/compile_summary.hpp"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

#include "compile/cubin_resources.hpp"

namespace exactune {

CompileSummary summarize(const std::vector<CompileOutcome>& outcomes) {
  CompileSummary s;
  std::set<std::pair<std::string_view, std::string_view>> codes;  // views into the outcomes' binaries
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
    if (o.kernel.binary) {
      if (const auto code = kernel_code(o.kernel.binary_bytes(), o.kernel.entry)) {
        ++s.gpu_kernels;
        codes.emplace(o.request.target, *code);
      }
    }
  }
  s.distinct_code = codes.size();
  return s;
}

}  // namespace exactune
