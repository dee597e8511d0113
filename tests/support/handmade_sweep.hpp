// The parts of a sweep that tests write by hand: its record of where and how
// it was timed (an H200, the family's reference recipe, a creation time, the
// timing method), and a variant's record, exact and timed. What tests that
// write a sweep.yaml of their own start from, adding the shapes they need.
#pragma once
#include <exactune/family.hpp>
#include <exactune/results.hpp>
#include <exactune/space.hpp>

inline exactune::SweepResults timed_sweep_header(const exactune::KernelFamily& family) {
  exactune::SweepResults r;
  r.device = {"NVIDIA H200", "nvidia-h200", "sm_90", 132, 62914560, 3201000, 6016, 13000, "13.0"};
  r.family = family.name();
  r.reference_recipe = family.reference_recipe();
  r.created = "2026-12-01T00:00:00Z";
  r.wall_s = 1.5;
  r.timing = {"rotated", "l2 resident", "cold", 5, 0.05, 2};
  return r;
}

// `variant`, exact in all 8 cases, timed at `rotated_us` hot (rotated) and 2 µs more cold.
inline exactune::VariantResult exact_timed_variant(const exactune::Variant& variant, double rotated_us) {
  exactune::VariantResult v;
  v.variant = variant.name;
  v.params = variant.params;
  v.registers = 40;
  v.exact = true;
  v.cases_passed = v.cases_total = 8;
  v.rotated = exactune::Timing{rotated_us, rotated_us - 0.125, rotated_us + 0.125, 5};
  const double cold_us = rotated_us + 2;
  v.cold = exactune::Timing{cold_us, cold_us - 0.125, cold_us + 0.125, 5};
  return v;
}
