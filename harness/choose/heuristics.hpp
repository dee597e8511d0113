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

// The configuration of one row-count bucket of one size.
struct Choice {
  int size = 0;  // the value of the family's size parameter; heuristics.yaml names it so
  // The bucket covers rows up to this (inclusive) and above the previous
  // bucket's bound; none: unbounded (the last bucket of a size).
  std::optional<std::int64_t> max_rows;
  Configuration chosen;
  double median_us = 0;       // the chosen variant's hot median on the evidence shape, rounded to 1 ns
  std::string runner_up;      // the fastest other exact variant there; "" when there was none
  std::optional<double> margin;  // runner_up median / chosen median - 1, rounded to 1e-4; negative when
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
  // Two timings closer than this (relative) are a tie even when both were
  // steady: run-to-run drift of a GPU is about this size.
  double min_noise = 0.02;
};

// Chooses per size and row-count bucket (see heuristics.cpp for the rules),
// for the family the results name (FamilyRegistry). Pure: the same results
// give the same heuristics. Throws exactune::error when no shape has an exact,
// timed variant, exactune::input_error when the family is unknown.
Heuristics choose_heuristics(const SweepResults& results, const ChooserOptions& options = {});

// Per shape (in the sweep's order), its `top_n` fastest exact variants by hot
// median: the ones worth timing again before choosing, so that the choice does
// not rest on one lucky measurement. Shapes without a timed exact variant are left out.
std::vector<std::pair<std::string, std::vector<std::string>>> contenders(const SweepResults& results, int top_n);

// The file's keys and comments come from the family the heuristics name
// (its size parameter is the key of a choice's size).
std::string to_heuristics_yaml(const Heuristics& heuristics);
// Throws exactune::error "<source>:<line>: <what is wrong>" on invalid input
// (exactune::input_error, a kind of it, from the strict reader).
Heuristics parse_heuristics_yaml(std::string_view yaml_text, const std::string& source);
Heuristics load_heuristics_file(const std::string& path);

}  // namespace exactune
