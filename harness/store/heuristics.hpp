// Heuristics: which variant to launch, per GPU, size (the family's size
// parameter) and row count: the model of heuristics.yaml (heuristics_file.hpp),
// the committed file that records a sweep's choices (choose/chooser.hpp makes
// them). The generated header and JSON (report/heuristics_emitter.hpp) are a
// pure function of that file.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <exactune/family.hpp>

#include "store/chooser_policy.hpp"

namespace exactune {

// Version 2 added each choice's same_as_best; version 1 files still read.
inline constexpr int kHeuristicsFormatVersion = 2;
inline constexpr int kOldestHeuristicsFormatVersion = 1;

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
  std::string runner_up;         // the fastest other exact variant there; "" when there was none
  std::optional<double> margin;  // runner_up's ranked figure / chosen's - 1, rounded to 1e-4; negative when
                                 // the shared configuration was kept within noise of a faster one, or the
                                 // rule picked a configuration the same as a faster one
  std::string shape;             // the evidence: the shape whose timings decided
  bool shared = false;           // the configuration shared by every bucket of this size (several buckets)
  // The configurations the comparison called the same as the fastest there
  // (the fastest among them), by name: what the choice was picked from
  // (choose/chooser.hpp). Empty in a file of version 1, which did not record it.
  std::vector<std::string> same_as_best;

  bool covers(int of_size, std::int64_t rows) const { return size == of_size && (!max_rows || rows <= *max_rows); }
};

struct DeviceHeuristics {
  std::string name;  // "NVIDIA H200"
  std::string slug;  // "nvidia-h200"
  std::string arch;  // "sm_90"
  int sm_count = 0;
  Configuration default_configuration;  // the one chosen most often of those timed in every bucket; for sizes
                                        // without a table (choose/chooser.hpp)
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

}  // namespace exactune
