// Results: one record per (shape, variant) of a sweep, plus what was measured
// around them (the GPU, the copy roofline, the reference chain, the rotation
// of the hot figure and the run-to-run noise), each figure in three timing
// regimes. Written to and read from sweep.yaml (sweep_file.hpp); the reports
// and the gate read nothing else.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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
  int samples = 0;  // the samples the statistics are over (before format 5: repetitions, each a mean)
  // Every sample the figure is over (microseconds), where the sweep kept them:
  // what time/comparison.hpp compares. Empty for a figure kept as a summary.
  std::vector<double> samples_us{};
  // The separate runs whose samples are pooled here (gate mode's re-measures,
  // gate/remeasure.hpp): the gate's between-run noise shrinks with them. Not
  // written: a sweep file is one run.
  int runs = 1;

  // (max - min) / median: how far apart the samples were, relative.
  double spread() const { return median_us > 0 ? (max_us - min_us) / median_us : 0; }
};

// How a figure was timed (timer.hpp). Serving runs activations that are not in
// L2, so the L2-resident figure alone flatters whatever fits there.
//   rotated:     CUDA-graph replay cycling through copies of the inputs whose
//                working set exceeds twice the L2 (Rotation): hot, not L2-resident
//   l2_resident: CUDA-graph replay of the same buffers: what stays in L2 stays hot
//   cold:        L2 flushed before each launch
enum class TimingRegime { rotated, l2_resident, cold };
inline constexpr std::array<TimingRegime, 3> kTimingRegimes = {TimingRegime::rotated, TimingRegime::l2_resident,
                                                               TimingRegime::cold};

// "rotated", "l2_resident", "cold": how files spell the regime.
constexpr std::string_view regime_name(TimingRegime r) {
  return r == TimingRegime::rotated ? "rotated" : r == TimingRegime::l2_resident ? "l2_resident" : "cold";
}
// "hot (rotated)", "hot (L2-resident)", "cold": how reports label it.
constexpr std::string_view regime_label(TimingRegime r) {
  return r == TimingRegime::rotated ? "hot (rotated)" : r == TimingRegime::l2_resident ? "hot (L2-resident)" : "cold";
}
inline std::optional<TimingRegime> regime_named(std::string_view name) {
  for (TimingRegime r : kTimingRegimes) {
    if (regime_name(r) == name) return r;
  }
  return std::nullopt;
}

struct TimingMethod {
  std::string
      rotated;  // e.g. "CUDA graphs cycling through copies of the inputs past twice the L2; one sample per replay"
  std::string l2_resident;  // e.g. "CUDA graph of 20 launches on the same buffers, replayed; one sample per replay"
  std::string cold;         // e.g. "L2 flushed (memset of 2x L2) before each launch; one sample per launch"
  // The samples of one attempt at a figure (timer.hpp); in sweeps before the
  // raw samples, the repetitions, each the mean of several replays.
  int repetitions = 0;
  // An attempt whose spread was larger was measured again, the new attempt
  // replacing it: its IQR / median, or before the raw samples (max - min) / median.
  double max_spread = 0;
  int noise_passes = 0;  // separate passes that re-measured the fastest few, for RunToRunNoise
};

// The copies of a shape's inputs the rotated regime cycles through, so that no
// launch finds its data left in L2 by the one before (rotation.hpp chooses).
struct Rotation {
  int copies = 1;
  std::int64_t working_set_bytes = 0;  // copies x bytes moved
};

// How far apart separate passes of one sweep measured the same figures, per
// regime: (max - min) / median of each figure's ratio to its pass's copy, the
// largest over the variants re-measured. The gate's noise comes from here and
// the baseline's own spread, never from the candidate.
struct RunToRunNoise {
  TimingRegime regime = TimingRegime::rotated;
  double noise = 0;
  int passes = 0;    // the main timing counted
  int variants = 0;  // the fastest few, re-measured in each pass
  // A merge of shards timed on several GPUs: the relative range of the copy
  // across them, folded into `noise`; shards: how many timed the shape (0: one sweep).
  double across_shards = 0;
  int shards = 0;
};

// An exact variant the sweep's search strategy (harness/strategies/) screened
// with short measurements and did not time fully: the screening round that cut
// it (1 = the first) and what its last screen measured, per regime screened.
struct ScreenedOut {
  int round = 0;
  std::vector<std::pair<TimingRegime, Timing>> timings;
};

// The SM clock the timer read right after each of a shape's figures
// (harness/backends/gpu/sm_clock.hpp), against the GPU's default clock:
// nvbench's throttling check. A figure read below kThrottledClockFraction of
// the default is named in `throttled`, "<what> <regime>" ("copy cold",
// "<variant> rotated"); none is flagged where the default is unknown (0).
struct SmClockRecord {
  int default_mhz = 0;
  int min_mhz = 0, max_mhz = 0;  // over the figures read
  int figures = 0;               // figures whose clock was read
  std::vector<std::string> throttled;
  friend bool operator==(const SmClockRecord&, const SmClockRecord&) = default;
};
inline constexpr double kThrottledClockFraction = 0.75;

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
  // Only exact variants are timed; those a search strategy cut are not, and say so here.
  std::optional<Timing> rotated, l2_resident, cold;
  std::optional<ScreenedOut> screened_out;

  const std::optional<Timing>& timing(TimingRegime r) const {
    return r == TimingRegime::rotated ? rotated : r == TimingRegime::l2_resident ? l2_resident : cold;
  }
  std::optional<Timing>& timing(TimingRegime r) {
    return r == TimingRegime::rotated ? rotated : r == TimingRegime::l2_resident ? l2_resident : cold;
  }
};

struct ShapeResult {
  Shape shape;
  std::int64_t bytes_moved = 0;  // read + written by a fused kernel
  // The roofline: a copy of the same bytes, in each regime.
  std::optional<Timing> copy_rotated, copy_l2_resident, copy_cold;
  // exactune's replica of the framework's kernels, launched as the framework
  // launches them: what variants are verified against. Not the framework itself.
  std::optional<Timing> reference_chain_rotated, reference_chain_l2_resident, reference_chain_cold;
  std::optional<Rotation> rotation;             // of the rotated figures; none when not timed
  std::vector<RunToRunNoise> run_to_run_noise;  // one per regime, when noise passes ran
  std::optional<SmClockRecord> sm_clock;        // none where no figure's clock was read
  std::vector<VariantResult> variants;

  // Counts a figure's clock, read right after its samples, into sm_clock (flagged below
  // kThrottledClockFraction of default_mhz, when known); `figure` is "<what> <regime>".
  void note_sm_clock(const std::string& figure, int mhz, std::optional<int> default_mhz);

  const VariantResult* find(const std::string& variant) const;
  // The exact variant with the lowest median in `r`; nullptr when none was timed there.
  const VariantResult* fastest_exact(TimingRegime r) const;
  const std::optional<Timing>& copy(TimingRegime r) const {
    return r == TimingRegime::rotated ? copy_rotated : r == TimingRegime::l2_resident ? copy_l2_resident : copy_cold;
  }
  std::optional<Timing>& copy(TimingRegime r) {
    return r == TimingRegime::rotated ? copy_rotated : r == TimingRegime::l2_resident ? copy_l2_resident : copy_cold;
  }
  const std::optional<Timing>& reference_chain(TimingRegime r) const {
    return r == TimingRegime::rotated       ? reference_chain_rotated
           : r == TimingRegime::l2_resident ? reference_chain_l2_resident
                                            : reference_chain_cold;
  }
  std::optional<Timing>& reference_chain(TimingRegime r) {
    return r == TimingRegime::rotated       ? reference_chain_rotated
           : r == TimingRegime::l2_resident ? reference_chain_l2_resident
                                            : reference_chain_cold;
  }
  // The recorded run-to-run noise of regime r; nullptr when none was measured.
  const RunToRunNoise* noise(TimingRegime r) const {
    for (const RunToRunNoise& n : run_to_run_noise) {
      if (n.regime == r) return &n;
    }
    return nullptr;
  }
};

// Shard `index` (from 1) of `count`: a deterministic share of a sweep's
// (shape, variant) pairs, for a fleet of GPUs (harness/space/selection.hpp).
struct Shard {
  int index = 1;
  int count = 1;
  friend bool operator==(const Shard&, const Shard&) = default;
};

// The most shards a sweep is split into: one per GPU of a fleet, far more
// GPUs than any fleet sweeps one model on. Every reader of a shard count
// keeps to it, so that no file can make a merge list millions of missing
// shards (what it writes and prints grows with the count).
inline constexpr int kMaxShards = 4096;

struct SweepResults {
  DeviceRecord device;
  std::string family;
  std::string reference_recipe;
  std::uint64_t seed = 1;  // of the inputs every variant was verified on (all rows, on the GPU)
  bool planted = false;    // kernels broken on purpose: variants named "<variant>.planted-<kind>"
  std::string created;     // ISO 8601, UTC
  double wall_s = 0;
  TimingMethod timing;
  // The search strategy that decided which exact variants were timed fully,
  // and its settings in words; empty in files from before strategies, whose
  // sweeps timed every exact variant.
  std::string strategy;
  std::string strategy_settings;
  // Part of the space only (harness/space/selection.hpp): one shard of a
  // partition (--shard i/n), or gate mode (--only: the choices and runners-up
  // of a heuristics.yaml, named here). A sweep merged from shards
  // (store/sweep_merge.hpp) has no shard, says how many it merged, and which
  // were missing when merged with --allow-partial.
  std::optional<Shard> shard;
  std::string only;
  int merged_shards = 0;
  std::vector<int> missing_shards;
  std::vector<ShapeResult> shapes;

  // Whether some (shape, variant) pairs of the space were left out on purpose:
  // what the gate must not take for removed variants.
  bool narrowed() const { return shard.has_value() || !only.empty() || !missing_shards.empty(); }

  const ShapeResult* find(const std::string& shape) const;
};

}  // namespace exactune
