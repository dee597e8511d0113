// The chooser: per size and row-count bucket, the fastest bit-exact variant of a
// sweep by the policy's figure, kept to one configuration per size where that
// one is within noise; what heuristics.yaml (store/heuristics_file.hpp) records.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <exactune/results.hpp>

#include "store/heuristics.hpp"

namespace exactune {

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

}  // namespace exactune
