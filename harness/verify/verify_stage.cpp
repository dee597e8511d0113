#include "verify/verify_stage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "compile/compile_plan.hpp"
#include <exactune/error.hpp>
#include <exactune/space.hpp>

namespace exactune {

SupportKernels load_support_kernels(const KernelFamily& family, Backend& backend, const CompileCache& cache,
                                    std::vector<CompileOutcome>* outcomes) {
  const std::vector<CompileOutcome> compiled = compile_all(family.support_requests(backend.target()), cache);
  SupportKernels support;
  for (const CompileOutcome& o : compiled) {
    if (!o.ok) throw error(fmt::format("the support kernel {} failed to compile for {}:\n{}", o.request.name, o.request.target, o.log));
    support.add(o.request.name, backend.load(o.kernel));
  }
  if (outcomes) *outcomes = compiled;
  return support;
}

VerifyStageResult run_verify_stage(const KernelFamily& family, Backend& backend, const SupportKernels& support,
                                   const std::vector<Shape>& shapes, const CompileCache& cache,
                                   const VerifyStageOptions& options) {
  VerifyStageResult result;

  std::set<int> sizes;
  for (const Shape& s : shapes) sizes.insert(s.size);
  std::vector<CompileRequest> requests;
  auto add_build = [&](Variant variant, int size, std::vector<std::string> defines) {
    CompileRequest r = family.variant_request(variant, size, backend.target());
    r.defines.insert(r.defines.end(), defines.begin(), defines.end());
    requests.push_back(std::move(r));
    result.builds.push_back(VariantBuild{std::move(variant), size, {}});
  };
  for (int size : sizes) {
    std::optional<Variant> first;
    for (const Candidate& c : enumerate_space(family, size)) {
      if (!name_matches(c.variant.name, options.variant_glob)) continue;
      if (!c.valid()) {
        ++result.excluded;
        continue;
      }
      if (!first) first = c.variant;
      add_build(c.variant, size, options.variant_defines);
    }
    for (const std::string& kind : options.planted_crashes) {
      const auto& kinds = planted_crash_kinds();
      const auto found = std::find(kinds.begin(), kinds.end(), kind);
      if (found == kinds.end()) {
        throw input_error(fmt::format("--plant-crash {}: not a kind of crash ({})", kind, fmt::join(kinds, ", ")));
      }
      if (!first) continue;
      Variant planted = *first;
      planted.name += ".planted-" + kind;
      std::vector<std::string> defines = options.variant_defines;
      defines.push_back(fmt::format("EXACTUNE_PLANTED_CRASH={}", found - kinds.begin() + 1));
      add_build(std::move(planted), size, std::move(defines));
    }
  }
  std::vector<CompileOutcome> outcomes = compile_all(requests, cache, options.compile);
  for (std::size_t i = 0; i < outcomes.size(); ++i) result.builds[i].outcome = std::move(outcomes[i]);

  result.records = verify_variants(family, backend, support, shapes, result.builds, options.verify);
  return result;
}

const std::vector<std::string>& planted_crash_kinds() {
  // In the order of EXACTUNE_PLANTED_CRASH's values (kernel_templates/planted_crash.cuh).
  static const std::vector<std::string> kinds = {"trap", "out-of-bounds", "spin"};
  return kinds;
}

std::size_t count_verify_runs(const KernelFamily& family, const std::vector<Shape>& shapes, const std::string& glob) {
  std::size_t runs = 0;
  for (const Shape& shape : shapes) {
    std::size_t variants = 0;
    for (const Candidate& c : enumerate_space(family, shape.size)) variants += c.valid() && name_matches(c.variant.name, glob);
    runs += variants * family.input_cases(shape).size();
  }
  return runs;
}

Shape first_rows(const KernelFamily& family, const Shape& shape, int rows) {
  if (rows <= 0) throw input_error(fmt::format("--rows {}: must be positive", rows));
  return family.with_rows_at_most(shape, rows);
}

}  // namespace exactune
