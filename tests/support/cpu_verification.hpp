// A family's variants verified on the CPU backend, for the families' CPU suites:
// the verify stage over a few small shapes, and the assertion that every build
// compiled and every (shape, variant, case) run was bit-exact.
#pragma once
#include <string>
#include <vector>

#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

#include "backends/cpu/cpu_backend.hpp"
#include "catch.hpp"
#include "verify/verify_stage.hpp"

namespace exactune_test {

// Two CTAs at once on the CPU: a persistent grid of 2 loops over its row groups.
inline exactune::VerifyStageResult verify_on_cpu(const exactune::KernelFamily& family,
                                                 const std::vector<exactune::Shape>& shapes, const std::string& glob,
                                                 const std::vector<std::string>& defines = {}) {
  const exactune::CompileCache cache(exactune::CompileCache::default_directory());
  exactune::CpuBackend cpu(2);
  exactune::VerifyStageOptions options;
  options.variant_glob = glob;
  options.variant_defines = defines;
  return exactune::run_verify_stage(family, cpu, exactune::load_support_kernels(family, cpu, cache), shapes, cache,
                                    options);
}

inline void require_all_exact(const exactune::KernelFamily& family, const exactune::VerifyStageResult& result) {
  for (const exactune::VariantBuild& b : result.builds) {
    INFO(b.variant.name << " at " << family.size_parameter() << " " << b.size << ":\n" << b.outcome.log);
    REQUIRE(b.outcome.ok);
  }
  for (const exactune::VerifyRecord& r : result.records) {
    INFO(r.shape << " " << r.variant << " " << r.input_case << ": " << r.message);
    CHECK(r.disposition == exactune::Disposition::passed);
  }
  CHECK(exactune::summarize(result.records).all_passed());
}

}  // namespace exactune_test
