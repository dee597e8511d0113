// Results: one record per (shape, variant) of a sweep, plus what was measured
// around them (the GPU, the copy roofline, the eager chain). Written to and read
// from sweep.yaml (sweep_file.hpp); the reports and the gate read nothing else.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

namespace exactune {

struct DeviceRecord {
  std::string name;  // "NVIDIA H200"
  std::string slug;  // "nvidia-h200": the reports/ folder
  std::string arch;  // "sm_90"
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
  int memory_clock_khz = 0;
  int memory_bus_bits = 0;
  int driver_version = 0;
  std::string nvrtc_version;
};

// One timed figure, per launch, in microseconds.
struct Timing {
  double median_us = 0;
  double min_us = 0;
  double max_us = 0;
  int samples = 0;  // repetitions the statistics are over

  // (max - min) / median: how far apart the repetitions were, relative.
  double spread() const { return median_us > 0 ? (max_us - min_us) / median_us : 0; }
};

struct TimingMethod {
  std::string hot;   // e.g. "CUDA graph of 20 launches, replayed; events around each replay"
  std::string cold;  // e.g. "L2 flushed (memset of 2x L2) before each launch; events around the launch"
  int repetitions = 0;
  double max_spread = 0;  // a figure with a larger spread was measured again
};

struct VariantResult {
  std::string variant;
  std::vector<Param> params;
  int registers = 0;
  int spill_bytes = 0;
  bool exact = false;
  int cases_passed = 0;
  int cases_total = 0;
  std::string failure_kind;  // "" when exact; else "compile", "runtime" or "incorrect"
  std::string failure;       // the first failure in words (case, row, column, values, ulps)
  std::optional<Timing> hot;   // only exact variants are timed
  std::optional<Timing> cold;
};

struct ShapeResult {
  Shape shape;
  std::int64_t bytes_moved = 0;  // read + written by a fused kernel
  std::optional<Timing> copy_hot, copy_cold;    // the roofline, same bytes
  std::optional<Timing> eager_hot, eager_cold;  // the reference chain, 4 launches
  std::vector<VariantResult> variants;

  const VariantResult* find(const std::string& variant) const;
};

struct SweepResults {
  DeviceRecord device;
  std::string family;
  std::string reference_recipe;
  std::string created;  // ISO 8601, UTC
  double wall_s = 0;
  TimingMethod timing;
  std::vector<ShapeResult> shapes;

  const ShapeResult* find(const std::string& shape) const;
};

}  // namespace exactune
