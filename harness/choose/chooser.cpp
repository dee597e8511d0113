#include "choose/chooser.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>

#include "store/heuristics.hpp"
#include "store/sweep_file.hpp"
#include "store/variant_params.hpp"

namespace exactune {

// ---------------------------------------------------------------- the chooser
namespace {

// An exact variant timed in the policy's regimes on one shape: all the chooser compares.
struct Timed {
  const VariantResult* result;
  double median_us;  // the ranked figure: the policy's median, or for `both` the sum of its two over their copies
  double spread;     // its noise: the largest spread of its figures and the shape's run-to-run noise in their regimes
  double figure_us;  // the median of policy_figure(), what a choice records
};

// `v` as the policy ranks it; none when it lacks a figure the policy needs.
std::optional<Timed> timed_by_policy(const ShapeResult& shape, const VariantResult& v, ChooserPolicy policy) {
  // A planted copy is broken on purpose: never a choice, whatever it measured.
  if (!v.exact || is_planted_variant(v.variant)) return std::nullopt;
  const std::vector<TimingRegime> regimes = policy_regimes(policy);
  // `both` adds figures of two regimes, so each is taken over its copy; a shape
  // without both copies adds the medians as they are.
  const bool over_copy = regimes.size() > 1 && std::all_of(regimes.begin(), regimes.end(), [&](TimingRegime r) {
                           return shape.copy(r) && shape.copy(r)->median_us > 0;
                         });
  Timed t{&v, 0, 0, 0};
  for (TimingRegime r : regimes) {
    const std::optional<Timing>& figure = v.timing(r);
    if (!figure || !(figure->median_us > 0)) return std::nullopt;
    t.median_us += over_copy ? figure->median_us / shape.copy(r)->median_us : figure->median_us;
    t.spread = std::max(t.spread, figure->spread());
    if (const RunToRunNoise* noise = shape.noise(r)) t.spread = std::max(t.spread, noise->noise);
  }
  t.figure_us = v.timing(policy_figure(policy))->median_us;
  return t;
}

// A row-count bucket of one size and the shape whose timings decide it.
struct Bucket {
  const ShapeResult* shape;
  std::optional<std::int64_t> max_rows;
  std::vector<Timed> ranked;  // fastest first

  const Timed* find(const std::string& variant) const {
    for (const Timed& t : ranked) {
      if (t.result->variant == variant) return &t;
    }
    return nullptr;
  }
};

std::vector<std::string> policy_regime_labels(ChooserPolicy policy) {
  std::vector<std::string> labels;
  for (TimingRegime r : policy_regimes(policy)) labels.emplace_back(regime_label(r));
  return labels;
}

std::vector<Timed> ranked_candidates(const ShapeResult& shape, ChooserPolicy policy) {
  std::vector<Timed> ranked;
  for (const VariantResult& v : shape.variants) {
    if (std::optional<Timed> t = timed_by_policy(shape, v, policy)) ranked.push_back(*t);
  }
  // Names break ties so that the order, and so the choice, never depends on the sweep's order.
  std::sort(ranked.begin(), ranked.end(), [](const Timed& a, const Timed& b) {
    return std::tie(a.median_us, a.result->variant) < std::tie(b.median_us, b.result->variant);
  });
  return ranked;
}

// The ranked candidates the tables may choose from: the family's
// not_chosen_because() removes the others (they stay in ranked_by_policy,
// which the summary reports from).
std::vector<Timed> choosable_candidates(const KernelFamily& family, const ShapeResult& shape, ChooserPolicy policy) {
  std::vector<Timed> ranked = ranked_candidates(shape, policy);
  std::erase_if(ranked, [&](const Timed& t) { return !family.not_chosen_because(t.result->params).empty(); });
  return ranked;
}

// Row counts are products of two ints, so their products need 128 bits (GCC and Clang have them).
__extension__ using Wide = unsigned __int128;

// floor(sqrt(a * b)) exactly: the geometric midpoint between two row counts,
// where a kernel tuned for either is as far (in ratio) from both.
std::int64_t geometric_midpoint(std::int64_t a, std::int64_t b) {
  const Wide product = static_cast<Wide>(a) * static_cast<Wide>(b);
  auto root = static_cast<std::int64_t>(std::sqrt(static_cast<long double>(a) * static_cast<long double>(b)));
  auto square = [](std::int64_t r) { return static_cast<Wide>(r) * static_cast<Wide>(r); };
  while (square(root + 1) <= product) ++root;
  while (root > 0 && square(root) > product) --root;
  return root;
}

// One bucket per distinct row count among the shapes of `size` that have a
// timed exact variant. Where several shapes share a row count, the first in
// the sweep's order is the evidence.
std::vector<Bucket> buckets_of(const KernelFamily& family, const SweepResults& results, int size,
                               ChooserPolicy policy) {
  std::map<std::int64_t, Bucket> by_rows;
  for (const ShapeResult& shape : results.shapes) {
    if (shape.shape.size != size) continue;
    std::vector<Timed> ranked = choosable_candidates(family, shape, policy);
    if (!ranked.empty()) by_rows.try_emplace(shape.shape.rows(), Bucket{&shape, std::nullopt, std::move(ranked)});
  }
  std::vector<Bucket> buckets;
  for (auto it = by_rows.begin(); it != by_rows.end(); ++it) {
    const auto next = std::next(it);
    if (next != by_rows.end()) it->second.max_rows = geometric_midpoint(it->first, next->first);
    buckets.push_back(std::move(it->second));
  }
  return buckets;
}

// Whether `candidate` is as fast as `best` within the noise of the two:
// their larger spread, and never less than the floor.
bool within_noise(const Timed& candidate, const Timed& best, double min_noise) {
  const double noise = std::max({candidate.spread, best.spread, min_noise});
  return candidate.median_us <= best.median_us * (1 + noise);
}

// Among the configurations exact and timed in every bucket, the one whose
// worst ratio to a bucket's best is smallest (ties: the least total time, then
// the faster in the first bucket); "" when there is none, or only one bucket
// and so nothing to share.
std::string shared_configuration(const std::vector<Bucket>& buckets) {
  if (buckets.size() < 2) return {};
  std::string shared;
  double shared_worst = 0, shared_total = 0;
  for (const Timed& first : buckets.front().ranked) {
    const std::string& name = first.result->variant;
    double worst = 0, total = 0;
    bool everywhere = true;
    for (const Bucket& b : buckets) {
      const Timed* t = b.find(name);
      if (t == nullptr) {
        everywhere = false;
        break;
      }
      worst = std::max(worst, t->median_us / b.ranked.front().median_us);
      total += t->median_us;
    }
    // `ranked` is in name order among equal times, so the first of equals wins.
    if (everywhere && (shared.empty() || std::tie(worst, total) < std::tie(shared_worst, shared_total))) {
      shared = name;
      shared_worst = worst;
      shared_total = total;
    }
  }
  return shared;
}

// Rounded once, here, so that what heuristics.yaml holds reads back as the very
// same doubles, and a header emitted before writing the file equals one emitted after.
double round_to_nanosecond(double us) { return std::round(us * 1000) / 1000; }
double round_margin(double margin) { return std::round(margin * 10000) / 10000 + 0.0; }  // + 0.0: no "-0"

Choice make_choice(int size, const Bucket& bucket, const Timed& chosen, bool shared) {
  Choice c;
  c.size = size;
  c.max_rows = bucket.max_rows;
  c.chosen = {chosen.result->variant, chosen.result->params};
  c.median_us = round_to_nanosecond(chosen.figure_us);
  for (const Timed& t : bucket.ranked) {
    if (t.result->variant == chosen.result->variant) continue;
    c.runner_up = t.result->variant;
    c.margin = round_margin(t.median_us / chosen.median_us - 1);
    break;
  }
  c.shape = bucket.shape->shape.name;
  c.shared = shared;
  return c;
}

std::vector<Choice> choose_for_size(int size, const std::vector<Bucket>& buckets, const ChooserOptions& options) {
  const std::string shared = shared_configuration(buckets);
  std::vector<Choice> choices;
  for (const Bucket& b : buckets) {
    const Timed& best = b.ranked.front();
    const Timed* candidate = shared.empty() ? nullptr : b.find(shared);
    const bool use_shared = candidate != nullptr && within_noise(*candidate, best, options.min_noise);
    choices.push_back(make_choice(size, b, use_shared ? *candidate : best, use_shared));
  }
  return choices;
}

// The configuration chosen most often; ties go to the one that is timed
// (exact) on more of the buckets' shapes, then to the least total of the
// policy's figure over them, then to the name.
Configuration most_chosen(const std::vector<Choice>& choices, const std::vector<const Bucket*>& buckets) {
  std::map<std::string, const Choice*> first_choice;
  std::map<std::string, int> count;
  for (const Choice& c : choices) {
    first_choice.try_emplace(c.chosen.variant, &c);
    ++count[c.chosen.variant];
  }
  auto rank = [&](const std::string& variant) {
    int missing = 0;
    double total = 0;
    for (const Bucket* b : buckets) {
      const Timed* t = b->find(variant);
      if (t == nullptr)
        ++missing;
      else
        total += t->median_us;
    }
    return std::make_tuple(-count[variant], missing, total);
  };
  std::string best = first_choice.begin()->first;
  for (const auto& [variant, choice] : first_choice) {
    if (rank(variant) < rank(best)) best = variant;
  }
  return first_choice[best]->chosen;
}

}  // namespace

Heuristics choose_heuristics(const SweepResults& results, const ChooserOptions& options) {
  const KernelFamily& family = FamilyRegistry::find(results.family);
  // A sweep of an older format may hold variants of an older space: they can
  // be gated by name, but a table of them could not be compiled, nor the
  // sweep written again in today's format, which names every axis.
  for (const ShapeResult& s : results.shapes) {
    for (const VariantResult& v : s.variants) {
      if (!is_configuration(family, v.params)) {
        throw input_error(
            fmt::format("variant {} of shape {} is of an older space of family {} (its params are not "
                        "the family's axes and values): sweep again to choose from it",
                        v.variant, s.shape.name, family.name()));
      }
    }
  }
  if (options.policy == ChooserPolicy::l2_resident) {
    for (const ShapeResult& s : results.shapes) {
      for (const VariantResult& v : s.variants) {
        if (v.exact && v.rotated) {
          throw error(fmt::format(
              "policy l2_resident ranks by the L2-resident hot figure, which flatters shapes that fit in L2; it is "
              "kept for sweeps timed before the rotated regime, and this sweep has rotated figures ({} on {}): "
              "choose rotated, cold or both",
              v.variant, s.shape.name));
        }
      }
    }
  }
  Heuristics h;
  h.family = family.name();
  h.policy = options.policy;
  h.device.name = results.device.name;
  h.device.slug = results.device.slug;
  h.device.arch = results.device.arch;
  h.device.sm_count = results.device.sm_count;

  std::map<int, std::vector<Bucket>> buckets;  // by size, ascending
  for (const ShapeResult& s : results.shapes) {
    if (!buckets.contains(s.shape.size))
      buckets.emplace(s.shape.size, buckets_of(family, results, s.shape.size, options.policy));
  }
  std::vector<const Bucket*> all_buckets;
  for (const auto& [size, of_size] : buckets) {
    for (const Bucket& b : of_size) all_buckets.push_back(&b);
    for (Choice& c : choose_for_size(size, of_size, options)) h.device.choices.push_back(std::move(c));
  }
  if (h.device.choices.empty()) {
    throw error(
        fmt::format("no shape of the sweep on {} has an exact variant timed {}, as policy {} ranks: nothing "
                    "to choose from (timing needs a GPU; a sweep from before the rotated regime has L2-resident "
                    "and cold figures only)",
                    results.device.name.empty() ? "this machine" : results.device.name,
                    fmt::join(policy_regime_labels(options.policy), " and "), policy_name(options.policy)));
  }
  h.device.default_configuration = most_chosen(h.device.choices, all_buckets);
  h.global_default = family.global_default();
  return h;
}

std::vector<const VariantResult*> ranked_by_policy(const ShapeResult& shape, ChooserPolicy policy) {
  std::vector<const VariantResult*> ranked;
  for (const Timed& t : ranked_candidates(shape, policy)) ranked.push_back(t.result);
  return ranked;
}

std::vector<std::pair<std::string, std::vector<std::string>>> contenders(const SweepResults& results, int top_n,
                                                                         ChooserPolicy policy) {
  const KernelFamily& family = FamilyRegistry::find(results.family);
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const ShapeResult& shape : results.shapes) {
    std::vector<std::string> names;
    for (const Timed& t : choosable_candidates(family, shape, policy)) {
      if (static_cast<int>(names.size()) >= top_n) break;
      names.push_back(t.result->variant);
    }
    if (!names.empty()) out.emplace_back(shape.shape.name, std::move(names));
  }
  return out;
}

}  // namespace exactune
