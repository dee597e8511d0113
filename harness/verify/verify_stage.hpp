// compile -> verify for one backend: compiles every valid variant of each
// shape's size for the backend's target and verifies every variant on
// every input case against the reference (one of the support kernels). The
// two overlap: each build is verified as soon as its kernel is compiled
// (verify/arriving_builds.hpp).
#pragma once
#include <string>
#include <vector>

#include "compile/compiler.hpp"
#include "space/selection.hpp"
#include "verify/verifier.hpp"

namespace exactune {

struct VerifyStageOptions {
  std::string variant_glob = "*";
  std::vector<std::string> variant_defines;  // e.g. {"EXACTUNE_PLANTED_FAULT=1"}: tests of the verifier
  // Tests of supervision: per size, one more build per kind named here
  // (planted_crash_kinds()), a copy of the first variant selected whose kernel
  // crashes that way, named "<variant>.planted-<kind>".
  std::vector<std::string> planted_crashes;
  // The (shape, variant) pairs verified, of those the glob matches: a variant
  // is built when selected for some shape of its size and run only on those
  // shapes. Planted copies go with the variant they copy.
  Selection selection;
  CompileOptions compile;
  VerifyOptions verify;
};

struct VerifyStageResult {
  std::vector<VariantBuild> builds;
  std::vector<VerifyRecord> records;
  std::size_t excluded = 0;
};

VerifyStageResult run_verify_stage(const KernelFamily& family, Backend& backend, const SupportKernels& support,
                                   const std::vector<Shape>& shapes, const CompileCache& cache,
                                   const VerifyStageOptions& options);

// Compiles and loads the family's support kernels for the backend, and the
// core's compare kernel (verify/device_compare.hpp); throws
// exactune::error with the compiler's log when one fails (nothing can be
// verified without the reference).
SupportKernels load_support_kernels(const KernelFamily& family, Backend& backend, const CompileCache& cache,
                                    std::vector<CompileOutcome>* outcomes = nullptr);

// The kinds of crash --plant-crash can plant: "trap", "out-of-bounds", "spin".
const std::vector<std::string>& planted_crash_kinds();

// How many (shape, variant, case) runs the verify stage will make: for progress.
std::size_t count_verify_runs(const KernelFamily& family, const std::vector<Shape>& shapes, const std::string& glob,
                              const Selection& selection = {});

// The most rows of a shape the CPU verifies (--rows): it runs a row thousands
// of times slower than a GPU, and allocates every buffer of the rows it runs,
// so that a shape of billions of rows must not reach it whole.
inline constexpr int kMaxCpuRows = 4096;

// The first `rows` rows of a shape (at least one per batch, at most its own
// rows): what the CPU backend verifies, since it runs thousands of times
// slower. Throws exactune::input_error unless 1 <= rows <= kMaxCpuRows.
Shape first_rows(const KernelFamily& family, const Shape& shape, int rows);

}  // namespace exactune
