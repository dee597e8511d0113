// Figures with samples, for the tests of what compares timings (the gate, its
// re-measuring, its power, the chooser): a variant timed with given samples, a
// one-shape run of such figures, and samples spread evenly around a median,
// deterministic and in no sorted order.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <exactune/results.hpp>

#include "time/statistics.hpp"

namespace exactune_test {

// `count` samples around `median_us`, evenly over +-`spread`/2, in the order
// k = 7i mod count, so that neighbours differ (count not a multiple of 7).
inline std::vector<double> samples_around(double median_us, double spread, int count = 30) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i) {
    const int k = (i * 7) % count;
    out.push_back(median_us * (1 + spread * (static_cast<double>(k) / (count - 1) - 0.5)));
  }
  return out;
}

// A Timing over these samples, keeping them, as a sweep that keeps samples records it.
inline exactune::Timing sampled_timing(std::vector<double> samples_us) {
  exactune::Timing t = exactune::timing_from_samples(samples_us);
  t.samples_us = std::move(samples_us);
  return t;
}

// An exact variant (8 of 8 cases) timed hot (rotated) with these samples.
inline exactune::VariantResult sampled(const std::string& name, std::vector<double> samples_us) {
  exactune::VariantResult v;
  v.variant = name;
  v.exact = true;
  v.cases_passed = v.cases_total = 8;
  v.rotated = sampled_timing(std::move(samples_us));
  return v;
}

// One run of the toy's sweep on an H200: shape "s", its configuration "fast"
// and its copy, both timed hot (rotated) with these samples.
inline exactune::SweepResults sampled_run(std::vector<double> fast_us, std::vector<double> copy_us) {
  exactune::SweepResults r;
  r.family = "toy_double";
  r.reference_recipe = "toy-1";
  r.device.name = "NVIDIA H200";
  r.device.arch = "sm_90";
  exactune::ShapeResult s;
  s.shape.name = "s";
  s.variants.push_back(sampled("fast", std::move(fast_us)));
  s.copy_rotated = sampled_timing(std::move(copy_us));
  r.shapes.push_back(std::move(s));
  return r;
}

}  // namespace exactune_test
