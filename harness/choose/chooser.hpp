// The chooser: per size and row-count bucket, the fastest bit-exact variant of a
// sweep by the policy's figure, kept to one configuration per size where that
// one is within noise; what heuristics.yaml (store/heuristics_file.hpp) records.
//
// Choices must not flip between runs that measured the same thing, so a
// bucket's choice is not simply the fastest:
//   1. Its same-as-best set: the fastest configuration by the policy's ranked
//      figure (copy-relative median), and every configuration that
//      time/comparison.hpp calls `same` as it, on samples each divided by its
//      own shape's copy median in the regime, in every regime the policy
//      ranks by, with effect max(ChooserOptions::same_effect,
//      ChooserOptions::min_noise) (2%). Where either figure kept no samples
//      (a summary-only sweep), a configuration is in the set only when its
//      ranked figure equals the fastest's.
//   2. One rule picks among the set, whatever the order the variants were
//      listed or timed in and whichever a search strategy timed in full:
//      (a) the one in the same-as-best set (of the same shape, made the same
//      way) of the most other timed regimes (of rotated, l2_resident and
//      cold, those the policy does not rank by); (b) then the fewest
//      registers (VariantResult::registers; 0, not recorded, counts as more
//      than any); (c) then the name.
//   3. The configuration shared by every bucket of the size is kept instead
//      where it is in the set, or within noise of the fastest (as before).
//   4. The device default (sizes nobody tuned) is chosen only among the
//      configurations timed in every bucket of every size (a screened-out one
//      is not timed): the one chosen most often, then the least total of the
//      policy's figure, then the name. Where none was timed in every bucket,
//      the fallback is what it was: the configuration chosen most often, then
//      timed in more buckets, then the least total, then the name.
// heuristics.yaml records each choice's same-as-best set.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <exactune/results.hpp>

#include "store/heuristics.hpp"
#include "time/comparison.hpp"

namespace exactune {

struct ChooserOptions {
  ChooserPolicy policy = kDefaultPolicy;
  // Two timings closer than this (relative) are a tie even when both were
  // steady: run-to-run drift of a GPU is about this size. The shape's
  // recorded run-to-run noise widens it where larger.
  double min_noise = 0.02;
  // The effect size of "same as best": the comparison's verdict `same` means
  // a difference smaller than this (the larger of it and min_noise is used).
  double same_effect = 0.02;
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

// How `other` compares with `best` on `shape`, as the chooser ranks (the
// policy's regimes): where both kept samples in every ranked regime, the
// comparison (time/comparison.hpp, at the chooser's effect size, each sample
// over its copy): slower in any regime is slower, same or faster in every one
// is same, anything else ambiguous; else the ranked figures' ratio against
// their noise (the larger spread, run-to-run noise and min_noise): within it
// same, beyond it slower. None when either is not an exact variant timed in the
// policy's regimes. What a search strategy's choices are judged by against
// exhaustive search's (exactune agreement).
struct ChoiceGap {
  Verdict verdict = Verdict::same;
  double slower = 0;  // other's ranked figure / best's - 1
  double noise = 0;   // the tolerance of a summary-only comparison; 0 where samples decided
  bool from_samples = false;
  std::string interval;  // the comparison's, per regime, where samples decided ("+0.4% [-0.8%, +1.6%]")
};
std::optional<ChoiceGap> compare_choice(const ShapeResult& shape, const std::string& best, const std::string& other,
                                        const ChooserOptions& options = {});

// Per shape (in the sweep's order), its `top_n` fastest exact variants by the
// policy that the tables may choose: the ones worth timing again before
// choosing, so that the choice does not rest on one lucky measurement. Shapes
// without a timed exact variant are left out.
std::vector<std::pair<std::string, std::vector<std::string>>> contenders(const SweepResults& results, int top_n,
                                                                         ChooserPolicy policy = kDefaultPolicy);

}  // namespace exactune
