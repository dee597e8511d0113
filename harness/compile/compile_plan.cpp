#include "compile/compile_plan.hpp"

#include <fnmatch.h>

#include <algorithm>

#include <exactune/space.hpp>

namespace exactune {

bool name_matches(const std::string& name, const std::string& glob) {
  return ::fnmatch(glob.c_str(), name.c_str(), 0) == 0;
}

CompilePlan plan_compiles(const KernelFamily& family, const std::vector<int>& sizes,
                          const std::vector<std::string>& targets, const std::string& variant_glob) {
  CompilePlan plan;
  for (const std::string& target : targets) {
    for (CompileRequest& r : family.support_requests(target)) plan.support.push_back(std::move(r));
    for (int size : sizes) {
      for (const Candidate& c : enumerate_space(family, size)) {
        if (!name_matches(c.variant.name, variant_glob)) continue;
        if (!c.valid()) {
          ++plan.excluded;
          continue;
        }
        plan.variants.push_back(family.variant_request(c.variant, size, target));
      }
    }
  }
  return plan;
}

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
