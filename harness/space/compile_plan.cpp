#include "space/compile_plan.hpp"

#include <exactune/space.hpp>

#include "util/name_glob.hpp"

namespace exactune {

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

}  // namespace exactune
