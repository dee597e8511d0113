// The verify stage: every (shape, variant, input case) run on a backend and its
// output compared bit for bit with the family's reference, on the device (the
// reference is computed there once per shape and case). One record per run,
// with an explicit disposition; a failure in one variant never stops the others.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <exactune/backend.hpp>
#include <exactune/compile_request.hpp>
#include <exactune/family.hpp>
#include <exactune/shapes.hpp>
#include <exactune/workload.hpp>

#include "supervise/steps.hpp"
#include "verify/bf16_compare.hpp"

namespace exactune {

enum class Disposition {
  passed,     // bit-exact over the whole output
  incorrect,  // ran, and some element differs
  failed,     // did not compile, or could not run (launch error, refused input)
  not_run,    // skipped because an earlier step failed
};
const char* to_string(Disposition d);

struct VerifyRecord {
  std::string shape;
  std::string variant;
  std::string input_case;
  Disposition disposition = Disposition::not_run;
  std::int64_t mismatches = 0;
  std::optional<Mismatch> first_mismatch;
  std::string message;  // why it failed, or the first mismatch in words
};

// One compiled variant for one size (the family's size parameter).
struct VariantBuild {
  Variant variant;
  int size = 0;
  CompileOutcome outcome;
};

// Recorded inputs in place of the family's seeded ones: the cases of a shape
// and the workload of one case (the torch golden test runs variants on torch's
// own inputs this way). Either both are set or neither.
struct RecordedInputs {
  std::function<std::vector<InputCase>(const Shape&)> cases;
  std::function<std::unique_ptr<Workload>(Backend&, const SupportKernels&, const Shape&, const InputCase&)> workload;
};

struct VerifyOptions {
  std::uint64_t seed = 1;
  std::function<void(const VerifyRecord&)> on_record;  // called as each record is made
  std::optional<RecordedInputs> recorded_inputs;       // none: the family's seeded inputs
  // A supervised run: each (shape, case) reference and each (shape, case,
  // variant) run is a step "verify/<shape>/<case>[/<variant>]", announced with
  // its deadline and journaled; a step an earlier worker finished is taken from
  // the journal. Null: everything runs here.
  Steps* steps = nullptr;
  DeadlinePolicy deadlines;
  // Set where the builds' compile outcomes are still arriving (verify/arriving_builds.hpp): called with a
  // build's index before its outcome is read, and returns once it is in.
  std::function<void(std::size_t build)> await_build;
};

std::vector<VerifyRecord> verify_variants(const KernelFamily& family, Backend& backend, const SupportKernels& support,
                                          const std::vector<Shape>& shapes, const std::vector<VariantBuild>& builds,
                                          const VerifyOptions& options);

// The seed of one (shape, case): the same on every backend, different per pair.
std::uint64_t case_seed(std::uint64_t seed, const std::string& shape, const std::string& input_case);

struct VerifySummary {
  std::size_t records = 0, passed = 0, incorrect = 0, failed = 0, not_run = 0;
  std::size_t shape_variants = 0, exact_shape_variants = 0;  // (shape, variant) pairs; exact when all cases passed
  bool all_passed() const { return records > 0 && passed == records; }
};
VerifySummary summarize(const std::vector<VerifyRecord>& records);

}  // namespace exactune
