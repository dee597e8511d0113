// Heuristics: which variant to launch, per GPU, size (the family's size
// parameter) and row count, chosen from a sweep's timed, bit-exact variants,
// and heuristics.yaml, the committed file that records the choice. The
// generated header and JSON (heuristics_emitter.hpp) are a pure function of
// that file.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <exactune/family.hpp>
#include <exactune/results.hpp>

namespace exactune {

inline constexpr int kHeuristicsFormatVersion = 1;

// Which timing regime(s) (results.hpp) the chooser ranks by, named in
// heuristics.yaml as `policy:`; the gate checks the same regimes, and cold.
//   rotated (the default): the hot figure with inputs cycled past twice the
//     L2: serving runs activations that are not L2-resident.
//   cold: the L2-flushed figure.
//   both: the sum of the rotated and the cold figure, each over its copy's:
//     a variant must be fast in both to win.
//   l2_resident: the hot figure replaying the same buffers, what every
//     heuristics.yaml without a `policy:` was chosen by. Only for sweeps timed
//     before the rotated regime existed: it flatters shapes that fit in L2.
enum class ChooserPolicy { rotated, cold, both, l2_resident };
inline constexpr ChooserPolicy kDefaultPolicy = ChooserPolicy::rotated;

std::string_view policy_name(ChooserPolicy policy);
// Throws exactune::input_error naming the policies on any other name.
ChooserPolicy policy_named(std::string_view name);
// The regimes the policy ranks by: where contenders are timed again and the gate looks.
std::vector<TimingRegime> policy_regimes(ChooserPolicy policy);
// What the gate checks for heuristics of this policy: the policy's regimes,
// then cold, which is always gated (a configuration chosen hot must not have
// got slower cold either).
std::vector<TimingRegime> gated_regimes(ChooserPolicy policy);
// The regime whose median a choice records as median_us: rotated for `both`.
TimingRegime policy_figure(ChooserPolicy policy);

// The configuration of one row-count bucket of one size.
struct Choice {
  int size = 0;  // the value of the family's size parameter; heuristics.yaml names it so
  // The bucket covers rows up to this (inclusive) and above the previous
  // bucket's bound; none: unbounded (the last bucket of a size).
  std::optional<std::int64_t> max_rows;
  Configuration chosen;
  // The chosen variant's median on the evidence shape in the policy's regime
  // (policy_figure: rotated for `both`), rounded to 1 ns; files without a
  // policy recorded the L2-resident hot median here.
  double median_us = 0;
  std::string runner_up;      // the fastest other exact variant there; "" when there was none
  std::optional<double> margin;  // runner_up's ranked figure / chosen's - 1, rounded to 1e-4; negative when
                                 // the shared configuration was kept within noise of a faster one
  std::string shape;          // the evidence: the shape whose timings decided
  bool shared = false;        // the configuration shared by every bucket of this size (several buckets)

  bool covers(int of_size, std::int64_t rows) const { return size == of_size && (!max_rows || rows <= *max_rows); }
};

struct DeviceHeuristics {
  std::string name;  // "NVIDIA H200"
  std::string slug;  // "nvidia-h200"
  std::string arch;  // "sm_90"
  int sm_count = 0;
  Configuration default_configuration;  // the one chosen most often; for sizes without a table
  std::vector<Choice> choices;          // by size, then by max_rows ascending, unbounded last

  // The choice of the bucket holding `rows` at `size`; nullptr when the size has no table.
  const Choice* choice_for(int size, std::int64_t rows) const;
};

struct Heuristics {
  int format_version = kHeuristicsFormatVersion;
  std::string family;  // the KernelFamily's name: its size parameter, axes and global default
  ChooserPolicy policy = kDefaultPolicy;
  DeviceHeuristics device;
  Configuration global_default;  // KernelFamily::global_default(), for a GPU without a table
};

struct ComputeCapability {
  int major = 0;
  int minor = 0;
};
// "sm_90" -> 9.0, "sm_100a" -> 10.0; throws exactune::error on anything else.
ComputeCapability compute_capability(std::string_view arch);

struct ChooserOptions {
  ChooserPolicy policy = kDefaultPolicy;
  // Two timings closer than this (relative) are a tie even when both were
  // steady: run-to-run drift of a GPU is about this size. The shape's
  // recorded run-to-run noise widens it where larger.
  double min_noise = 0.02;
};

// Chooses per size and row-count bucket (see heuristics.cpp for the rules),
// ranking by the policy's figure, for the family the results name
// (FamilyRegistry). Pure: the same results give the same heuristics. Throws
// exactune::error when no shape has an exact variant timed in the policy's
// regimes, or when policy l2_resident is asked of a sweep with rotated
// figures; exactune::input_error when the family is unknown, or when a
// variant is of an older space (a sweep of an older format). Planted copies
// (is_planted_variant) are never chosen nor ranked; the configurations the
// family's not_chosen_because() names are never chosen (nor runner-up), but
// ranked.
Heuristics choose_heuristics(const SweepResults& results, const ChooserOptions& options = {});

// The shape's exact variants timed in the policy's regimes, fastest first by
// the policy's figure (ties by name): what the chooser, summary.md and the
// gate's default rank by.
std::vector<const VariantResult*> ranked_by_policy(const ShapeResult& shape, ChooserPolicy policy);

// Per shape (in the sweep's order), its `top_n` fastest exact variants by the
// policy that the tables may choose: the ones worth timing again before
// choosing, so that the choice does not rest on one lucky measurement. Shapes
// without a timed exact variant are left out.
std::vector<std::pair<std::string, std::vector<std::string>>> contenders(const SweepResults& results, int top_n,
                                                                          ChooserPolicy policy = kDefaultPolicy);

// The file's keys and comments come from the family the heuristics name
// (its size parameter is the key of a choice's size).
std::string to_heuristics_yaml(const Heuristics& heuristics);
// Throws exactune::error "<source>:<line>: <what is wrong>" on invalid input
// (exactune::input_error, a kind of it, from the strict reader).
Heuristics parse_heuristics_yaml(std::string_view yaml_text, const std::string& source);
Heuristics load_heuristics_file(const std::string& path);

}  // namespace exactune
