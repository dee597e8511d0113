// The records a hand-made sweep to choose from is made of, for a variant of
// any family: a variant timed, one that is not exact, one exact and never
// timed, a shape with its copy and reference chain timed, and where and how
// the sweep was timed. support/recorded_sweep.hpp makes the toy family's.
#pragma once
#include <utility>
#include <vector>

#include <exactune/family.hpp>
#include <exactune/results.hpp>
#include <exactune/shapes.hpp>

namespace recorded {

using namespace exactune;

// A variant's record, with its name and params and nothing measured.
inline VariantResult record_of(const Variant& v) {
  VariantResult r;
  r.variant = v.name;
  r.params = v.params;
  return r;
}

inline VariantResult timed(const Variant& variant, double median_us, double spread = 0.005) {
  VariantResult v = record_of(variant);
  v.exact = true;
  v.cases_passed = v.cases_total = 9;
  // Hot the same rotated and L2-resident: the default policy (rotated) chooses as the L2-resident figure would.
  v.rotated = v.l2_resident = Timing{median_us, median_us * (1 - spread / 2), median_us * (1 + spread / 2), 20};
  return v;
}

inline VariantResult incorrect(const Variant& variant) {
  VariantResult v = record_of(variant);
  v.cases_total = 9;
  v.failure_kind = "incorrect";
  v.failure = "case c1, row 3, column 17: 0x3f80 vs 0x3f81 (1 ulp) | more";
  v.rotated = v.l2_resident = Timing{1.0, 1.0, 1.0, 20};  // a timing must not make it a candidate
  return v;
}

inline VariantResult untimed(const Variant& variant) {
  VariantResult v = record_of(variant);
  v.exact = true;
  return v;
}

// A shape's record: its copy and reference chain timed, and `variants`.
inline ShapeResult shape_result(Shape shape, std::vector<VariantResult> variants) {
  ShapeResult s;
  s.shape = std::move(shape);
  s.shape.model = "test model";
  s.copy_rotated = s.copy_l2_resident = Timing{2.0, 2.0, 2.0, 20};
  s.reference_chain_rotated = s.reference_chain_l2_resident = Timing{40.0, 40.0, 40.0, 20};
  s.variants = std::move(variants);
  return s;
}

// Where and how a recorded sweep of `family` was timed: an H200, a year ago.
inline SweepResults recorded_header(const KernelFamily& family) {
  SweepResults r;
  r.device = {.name = "NVIDIA H200",
              .slug = "nvidia-h200",
              .arch = "sm_90",
              .sm_count = 132,
              .l2_bytes = 60 << 20,
              .driver_version = 13000,
              .nvrtc_version = "13.0"};
  r.family = family.name();
  r.reference_recipe = family.reference_recipe();
  r.created = "2025-01-01T00:00:00Z";
  r.wall_s = 12;
  r.timing.rotated = "CUDA graph cycling through copies of the inputs";
  r.timing.l2_resident = "CUDA graph of 20 launches";
  r.timing.repetitions = 20;
  return r;
}

}  // namespace recorded
