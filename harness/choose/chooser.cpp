#include "choose/chooser.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>

#include "store/heuristics.hpp"
#include "store/sweep_file.hpp"
#include "store/variant_params.hpp"
#include "time/comparison.hpp"

namespace exactune {

// ---------------------------------------------------------------- the chooser
namespace {

// An exact variant timed in some regimes (the policy's, or one other) on one shape: all the chooser compares.
struct Timed {
  const VariantResult* result;
  double median_us;  // the ranked figure: the policy's median, or for `both` the sum of its two over their copies
  double spread;     // its noise: the largest spread of its figures and the shape's run-to-run noise in their regimes
  double figure_us;  // the median of the first regime's figure, what a choice records
  // Per regime, each sample over the shape's copy median in that regime: what
  // the comparison judges "same" on. Empty where the figure kept no samples or
  // the shape has no copy in that regime.
  std::vector<std::vector<double>> relative_samples;
};

// `v` as ranked by `regimes` (the first gives figure_us); none when it lacks a figure they need.
std::optional<Timed> timed_in(const ShapeResult& shape, const VariantResult& v,
                              const std::vector<TimingRegime>& regimes) {
  // A planted copy is broken on purpose: never a choice, whatever it measured.
  if (!v.exact || is_planted_variant(v.variant)) return std::nullopt;
  // `both` adds figures of two regimes, so each is taken over its copy; a shape
  // without both copies adds the medians as they are.
  const bool over_copy = regimes.size() > 1 && std::all_of(regimes.begin(), regimes.end(), [&](TimingRegime r) {
                           return shape.copy(r) && shape.copy(r)->median_us > 0;
                         });
  Timed t{&v, 0, 0, 0, {}};
  for (TimingRegime r : regimes) {
    const std::optional<Timing>& figure = v.timing(r);
    if (!figure || !(figure->median_us > 0)) return std::nullopt;
    t.median_us += over_copy ? figure->median_us / shape.copy(r)->median_us : figure->median_us;
    t.spread = std::max(t.spread, figure->spread());
    if (const RunToRunNoise* noise = shape.noise(r)) t.spread = std::max(t.spread, noise->noise);
    std::vector<double>& relative = t.relative_samples.emplace_back();
    const std::optional<Timing>& copy = shape.copy(r);
    const bool comparable = copy && copy->median_us > 0 &&
                            std::all_of(figure->samples_us.begin(), figure->samples_us.end(),
                                        [](double s) { return s > 0 && std::isfinite(s); });
    if (comparable) {
      for (double s : figure->samples_us) relative.push_back(s / copy->median_us);
    }
  }
  t.figure_us = v.timing(regimes.front())->median_us;
  return t;
}

// A row-count bucket of one size and the shape whose timings decide it.
struct Bucket {
  const ShapeResult* shape;
  std::optional<std::int64_t> max_rows;
  std::vector<Timed> ranked;  // fastest first
  // The ranked configurations the comparison calls the same as the fastest
  // (same_as_best), by name; and the one of them the rule picks (pick_among_same).
  std::vector<const Timed*> same;
  const Timed* pick = nullptr;

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

std::vector<Timed> ranked_in(const ShapeResult& shape, const std::vector<TimingRegime>& regimes) {
  std::vector<Timed> ranked;
  for (const VariantResult& v : shape.variants) {
    if (std::optional<Timed> t = timed_in(shape, v, regimes)) ranked.push_back(std::move(*t));
  }
  // Names break ties so that the order, and so the choice, never depends on the sweep's order.
  std::sort(ranked.begin(), ranked.end(), [](const Timed& a, const Timed& b) {
    return std::tie(a.median_us, a.result->variant) < std::tie(b.median_us, b.result->variant);
  });
  return ranked;
}

std::vector<Timed> ranked_candidates(const ShapeResult& shape, ChooserPolicy policy) {
  return ranked_in(shape, policy_regimes(policy));
}

// The ranked candidates the tables may choose from: the family's
// not_chosen_because() removes the others (they stay in ranked_by_policy,
// which the summary reports from).
std::vector<Timed> choosable_in(const KernelFamily& family, const ShapeResult& shape,
                                const std::vector<TimingRegime>& regimes) {
  std::vector<Timed> ranked = ranked_in(shape, regimes);
  std::erase_if(ranked, [&](const Timed& t) { return !family.not_chosen_because(t.result->params).empty(); });
  return ranked;
}

std::vector<Timed> choosable_candidates(const KernelFamily& family, const ShapeResult& shape, ChooserPolicy policy) {
  return choosable_in(family, shape, policy_regimes(policy));
}

// Whether `candidate` is the same as `fastest` (the first of a ranking): the
// comparison's verdict `same` in every ranked regime, at `effect`, where both
// have samples there; else (a summary-only figure) only an equal ranked figure.
bool same_as(const Timed& candidate, const Timed& fastest, double effect) {
  if (&candidate == &fastest) return true;
  bool sampled = candidate.relative_samples.size() == fastest.relative_samples.size();
  for (std::size_t i = 0; sampled && i < candidate.relative_samples.size(); ++i) {
    sampled = !candidate.relative_samples[i].empty() && !fastest.relative_samples[i].empty();
  }
  if (!sampled) return candidate.median_us == fastest.median_us;
  ComparisonOptions options;
  options.effect = effect;
  for (std::size_t i = 0; i < candidate.relative_samples.size(); ++i) {
    if (compare_samples(fastest.relative_samples[i], candidate.relative_samples[i], options).verdict != Verdict::same)
      return false;
  }
  return true;
}

// The configurations of `ranked` (fastest first) the same as its fastest, by name.
std::vector<const Timed*> same_as_best(const std::vector<Timed>& ranked, double effect) {
  std::vector<const Timed*> same;
  for (const Timed& t : ranked) {
    if (same_as(t, ranked.front(), effect)) same.push_back(&t);
  }
  std::sort(same.begin(), same.end(),
            [](const Timed* a, const Timed* b) { return a->result->variant < b->result->variant; });
  return same;
}

// The chooser's effect size: its options' floor, or the noise floor where larger.
double same_effect(const ChooserOptions& options) { return std::max(options.same_effect, options.min_noise); }

// The rule that picks one of a bucket's same-as-best set (chooser.hpp): the
// one in the same-as-best set of the most other regimes timed on its shape,
// then the fewest registers (0, not recorded, after any count), then the name.
// Nothing in it depends on the order of the sweep's variants or samples.
const Timed* pick_among_same(const KernelFamily& family, const ShapeResult& shape, ChooserPolicy policy,
                             const std::vector<const Timed*>& same, double effect) {
  if (same.size() == 1) return same.front();
  const std::vector<TimingRegime> ranked_regimes = policy_regimes(policy);
  std::map<std::string, int> other_regimes;  // by variant: the other regimes whose same-as-best set holds it
  for (TimingRegime r : kTimingRegimes) {
    if (std::find(ranked_regimes.begin(), ranked_regimes.end(), r) != ranked_regimes.end()) continue;
    const std::vector<Timed> ranked = choosable_in(family, shape, {r});
    if (ranked.empty()) continue;
    for (const Timed* t : same_as_best(ranked, effect)) ++other_regimes[t->result->variant];
  }
  const auto key = [&](const Timed* t) {
    const int registers = t->result->registers;
    return std::make_tuple(-other_regimes[t->result->variant], registers > 0 ? registers : INT_MAX,
                           std::cref(t->result->variant));
  };
  return *std::min_element(same.begin(), same.end(), [&](const Timed* a, const Timed* b) { return key(a) < key(b); });
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
// timed exact variant, each with its same-as-best set and its pick. Where
// several shapes share a row count, the first in the sweep's order is the evidence.
std::vector<Bucket> buckets_of(const KernelFamily& family, const SweepResults& results, int size,
                               const ChooserOptions& options) {
  std::map<std::int64_t, Bucket> by_rows;
  for (const ShapeResult& shape : results.shapes) {
    if (shape.shape.size != size) continue;
    std::vector<Timed> ranked = choosable_candidates(family, shape, options.policy);
    if (!ranked.empty())
      by_rows.try_emplace(shape.shape.rows(), Bucket{&shape, std::nullopt, std::move(ranked), {}, nullptr});
  }
  std::vector<Bucket> buckets;
  for (auto it = by_rows.begin(); it != by_rows.end(); ++it) {
    const auto next = std::next(it);
    if (next != by_rows.end()) it->second.max_rows = geometric_midpoint(it->first, next->first);
    buckets.push_back(std::move(it->second));
  }
  // The sets point into `ranked`, so they are made where the buckets stay.
  const double effect = same_effect(options);
  for (Bucket& b : buckets) {
    b.same = same_as_best(b.ranked, effect);
    b.pick = pick_among_same(family, *b.shape, options.policy, b.same, effect);
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
  for (const Timed* t : bucket.same) c.same_as_best.push_back(t->result->variant);
  return c;
}

std::vector<Choice> choose_for_size(int size, const std::vector<Bucket>& buckets, const ChooserOptions& options) {
  const std::string shared = shared_configuration(buckets);
  std::vector<Choice> choices;
  for (const Bucket& b : buckets) {
    const Timed* candidate = shared.empty() ? nullptr : b.find(shared);
    const bool in_same = candidate != nullptr && std::find(b.same.begin(), b.same.end(), candidate) != b.same.end();
    const bool use_shared =
        candidate != nullptr && (in_same || within_noise(*candidate, b.ranked.front(), options.min_noise));
    choices.push_back(make_choice(size, b, use_shared ? *candidate : *b.pick, use_shared));
  }
  return choices;
}

// The rank of `variant` for the device default, lowest first: chosen most
// often, then timed (exact) on more of the buckets' shapes, then the least
// total of the policy's figure over them, then the name.
std::tuple<int, int, double, std::string> default_rank(const std::string& variant, const std::vector<Choice>& choices,
                                                       const std::vector<const Bucket*>& buckets) {
  int chosen = 0, missing = 0;
  double total = 0;
  for (const Choice& c : choices) chosen += c.chosen.variant == variant ? 1 : 0;
  for (const Bucket* b : buckets) {
    const Timed* t = b->find(variant);
    if (t == nullptr)
      ++missing;
    else
      total += t->median_us;
  }
  return {-chosen, missing, total, variant};
}

// The device default, which serves every size without a table: among the
// configurations timed (exact, choosable, not screened out) in every bucket
// of every size, the one ranked first by default_rank, so that one a search
// strategy happened to time in some buckets only never wins on where it was
// timed. Where no configuration was timed in every bucket, the first by
// default_rank of those chosen somewhere.
Configuration device_default(const std::vector<Choice>& choices, const std::vector<const Bucket*>& buckets) {
  std::map<std::string, Configuration> everywhere;
  for (const Timed& t : buckets.front()->ranked) {
    if (std::all_of(buckets.begin(), buckets.end(), [&](const Bucket* b) { return b->find(t.result->variant); }))
      everywhere.emplace(t.result->variant, Configuration{t.result->variant, t.result->params});
  }
  std::map<std::string, Configuration> candidates = std::move(everywhere);
  if (candidates.empty()) {
    for (const Choice& c : choices) candidates.emplace(c.chosen.variant, c.chosen);
  }
  const Configuration* best = nullptr;
  for (const auto& [variant, configuration] : candidates) {
    if (best == nullptr || default_rank(variant, choices, buckets) < default_rank(best->variant, choices, buckets))
      best = &configuration;
  }
  return *best;
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
      buckets.emplace(s.shape.size, buckets_of(family, results, s.shape.size, options));
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
  h.device.default_configuration = device_default(h.device.choices, all_buckets);
  h.global_default = family.global_default();
  return h;
}

std::optional<ChoiceGap> compare_choice(const ShapeResult& shape, const std::string& best, const std::string& other,
                                        const ChooserOptions& options) {
  const std::vector<TimingRegime> regimes = policy_regimes(options.policy);
  const VariantResult* b = shape.find(best);
  const VariantResult* o = shape.find(other);
  if (b == nullptr || o == nullptr) return std::nullopt;
  const std::optional<Timed> tb = timed_in(shape, *b, regimes), to = timed_in(shape, *o, regimes);
  if (!tb || !to) return std::nullopt;
  ChoiceGap gap;
  gap.slower = to->median_us / tb->median_us - 1;
  bool sampled = true;
  for (std::size_t i = 0; i < regimes.size(); ++i) {
    sampled = sampled && !tb->relative_samples[i].empty() && !to->relative_samples[i].empty();
  }
  if (!sampled) {
    gap.noise = std::max({tb->spread, to->spread, options.min_noise});
    gap.verdict = gap.slower <= gap.noise ? Verdict::same : Verdict::slower;
    return gap;
  }
  gap.from_samples = true;
  ComparisonOptions comparison;
  comparison.effect = same_effect(options);
  bool slower = false, undecided = false;
  for (std::size_t i = 0; i < regimes.size(); ++i) {
    const Comparison c = compare_samples(tb->relative_samples[i], to->relative_samples[i], comparison);
    slower = slower || c.verdict == Verdict::slower;
    undecided = undecided || c.verdict == Verdict::ambiguous;
    gap.interval += fmt::format("{}{} {}", i ? "; " : "", regime_name(regimes[i]), c.describe());
  }
  gap.verdict = slower ? Verdict::slower : undecided ? Verdict::ambiguous : Verdict::same;
  return gap;
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
