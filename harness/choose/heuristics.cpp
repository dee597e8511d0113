#include "choose/heuristics.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>
#include "shapes/shape_parameters_reader.hpp"
#include "store/sweep_file.hpp"
#include "store/variant_params.hpp"
#include "util/strict_yaml.hpp"
#include "util/text_file.hpp"
#include "util/yaml_node_text.hpp"
#include "util/yaml_scalar.hpp"

namespace exactune {

const Choice* DeviceHeuristics::choice_for(int size, std::int64_t rows) const {
  for (const Choice& c : choices) {
    if (c.covers(size, rows)) return &c;
  }
  return nullptr;
}

ComputeCapability compute_capability(std::string_view arch) {
  // sm_XY[Z][suffix]: the last digit is the minor version, the others the major.
  const std::string_view digits = arch.substr(std::min<std::size_t>(3, arch.size()));
  int number = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  const std::size_t count = static_cast<std::size_t>(end - digits.data());
  const bool suffix_ok = count == digits.size() || (count + 1 == digits.size() && std::islower(static_cast<unsigned char>(digits.back())));
  if (!arch.starts_with("sm_") || ec != std::errc() || count < 2 || count > 3 || !suffix_ok) {
    throw error(fmt::format("'{}' is no GPU architecture such as sm_80, sm_90 or sm_100a", arch));
  }
  return {number / 10, number % 10};
}

std::string_view policy_name(ChooserPolicy policy) {
  switch (policy) {
    case ChooserPolicy::rotated: return "rotated";
    case ChooserPolicy::cold: return "cold";
    case ChooserPolicy::both: return "both";
    case ChooserPolicy::l2_resident: return "l2_resident";
  }
  return "";
}

ChooserPolicy policy_named(std::string_view name) {
  for (ChooserPolicy p : {ChooserPolicy::rotated, ChooserPolicy::cold, ChooserPolicy::both, ChooserPolicy::l2_resident}) {
    if (policy_name(p) == name) return p;
  }
  throw input_error(fmt::format("policy '{}' is none of rotated, cold, both, l2_resident", name));
}

std::vector<TimingRegime> policy_regimes(ChooserPolicy policy) {
  switch (policy) {
    case ChooserPolicy::rotated: return {TimingRegime::rotated};
    case ChooserPolicy::cold: return {TimingRegime::cold};
    case ChooserPolicy::both: return {TimingRegime::rotated, TimingRegime::cold};
    case ChooserPolicy::l2_resident: return {TimingRegime::l2_resident};
  }
  return {};
}

std::vector<TimingRegime> gated_regimes(ChooserPolicy policy) {
  std::vector<TimingRegime> regimes = policy_regimes(policy);
  if (std::find(regimes.begin(), regimes.end(), TimingRegime::cold) == regimes.end()) {
    regimes.push_back(TimingRegime::cold);
  }
  return regimes;
}

TimingRegime policy_figure(ChooserPolicy policy) { return policy_regimes(policy).front(); }

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
      if (t == nullptr) ++missing;
      else total += t->median_us;
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
        throw input_error(fmt::format("variant {} of shape {} is of an older space of family {} (its params are not "
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
    if (!buckets.contains(s.shape.size)) buckets.emplace(s.shape.size, buckets_of(family, results, s.shape.size, options.policy));
  }
  std::vector<const Bucket*> all_buckets;
  for (const auto& [size, of_size] : buckets) {
    for (const Bucket& b : of_size) all_buckets.push_back(&b);
    for (Choice& c : choose_for_size(size, of_size, options)) h.device.choices.push_back(std::move(c));
  }
  if (h.device.choices.empty()) {
    throw error(fmt::format("no shape of the sweep on {} has an exact variant timed {}, as policy {} ranks: nothing "
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

// ---------------------------------------------------------- heuristics.yaml out
namespace {

// The keys of a choice besides the size's, whose key is the family's size parameter.
const std::vector<std::string> kChoiceKeys = {"max_rows",  "variant", "params", "median_us",
                                              "runner_up", "margin",  "shape",  "shared"};

// The key a choice's size is written under: the family's size parameter.
std::string size_key(const KernelFamily& family) {
  std::string key = family.size_parameter();
  if (key.empty() || std::find(kChoiceKeys.begin(), kChoiceKeys.end(), key) != kChoiceKeys.end()) {
    throw error(fmt::format("family {}: its size parameter '{}' cannot key a choice in heuristics.yaml",
                            family.name(), key));
  }
  return key;
}

// A string as a YAML scalar: plain when no YAML reader could take it for
// anything else (a bool, a null, a number of another spelling, syntax), else
// double-quoted.
std::string yaml_scalar(const std::string& text) {
  const bool plain_safe =
      !text.empty() && std::isalnum(static_cast<unsigned char>(text.front())) && text.back() != ' ' &&
      !yaml_reserved_word(text) && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::string_view(" ._-()/+").find(c) != std::string_view::npos;
      });
  return plain_safe ? text : yaml_double_quoted(text);
}

std::string yaml_params(const std::vector<Param>& params) {
  std::vector<std::string> items;
  for (const Param& p : params) items.push_back(fmt::format("{}: {}", p.axis, yaml_scalar(p.value)));
  return fmt::format("{{{}}}", fmt::join(items, ", "));
}

void write_configuration(std::string& out, const Configuration& c, std::string_view indent) {
  fmt::format_to(std::back_inserter(out), "{0}variant: {1}\n{0}params: {2}\n", indent, yaml_scalar(c.variant),
                 yaml_params(c.params));
}

void write_choice(std::string& out, const Choice& c, const std::string& key) {
  auto line = [&](std::string_view name, const auto& value) {
    fmt::format_to(std::back_inserter(out), "      {}: {}\n", name, value);
  };
  fmt::format_to(std::back_inserter(out), "    - {}: {}\n", key, c.size);
  if (c.max_rows) line("max_rows", *c.max_rows);
  write_configuration(out, c.chosen, "      ");
  line("median_us", c.median_us);
  if (!c.runner_up.empty()) line("runner_up", yaml_scalar(c.runner_up));
  if (c.margin) line("margin", *c.margin);
  line("shape", yaml_scalar(c.shape));
  line("shared", c.shared);
}

// `text` as "# " comment lines of at most `width` characters, wrapped at spaces.
std::string yaml_comment(std::string_view text, std::size_t width = 82) {
  std::string out, line;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find(' ', start), text.size());
    const std::string_view word = text.substr(start, end - start);
    if (!line.empty() && 2 + line.size() + 1 + word.size() > width) {
      out += fmt::format("# {}\n", line);
      line.clear();
    }
    line += line.empty() ? std::string(word) : fmt::format(" {}", word);
    start = end + 1;
  }
  if (!line.empty()) out += fmt::format("# {}\n", line);
  return out;
}

// What the policy ranks by, in words, for the file's comment.
std::string policy_words(ChooserPolicy policy) {
  switch (policy) {
    case ChooserPolicy::rotated:
      return "the rotated hot median (a CUDA graph cycling through copies of the inputs past twice the L2: "
             "serving's activations are not L2-resident); median_us is that median";
    case ChooserPolicy::cold: return "the cold median (L2 flushed before each launch); median_us is that median";
    case ChooserPolicy::both:
      return "the sum of the rotated hot and the cold median, each over the same regime's copy; margin compares "
             "those sums, and median_us is the rotated hot median";
    case ChooserPolicy::l2_resident:
      return "the L2-resident hot median (the same buffers replayed), as every sweep timed before the rotated "
             "regime was: it flatters shapes that fit in L2; median_us is that median";
  }
  return "";
}

std::string format_comment(const std::string& size_parameter, ChooserPolicy policy) {
  return "#\n" +
         yaml_comment(fmt::format(
             "Policy {}: variants are ranked by {}. Per size ({}), row counts fall into buckets, one per timed "
             "shape: a bucket holds rows up to max_rows, the geometric midpoint between its shape's row count and "
             "the next one's (the last bucket has no max_rows). A choice is the fastest bit-exact variant of its "
             "bucket's shape, unless the configuration shared by all buckets of the size (shared: true) is within "
             "noise of it there. runner_up is the fastest other exact variant, margin = runner_up / chosen - 1 "
             "(negative where the shared configuration was kept). The device default serves sizes without a table: "
             "the configuration chosen most often. The gate checks the policy's regimes, and cold.",
             policy_name(policy), policy_words(policy), size_parameter)) +
         "# Regenerate the header and JSON: exactune emit-header --from heuristics.yaml\n";
}

}  // namespace

std::string to_heuristics_yaml(const Heuristics& h) {
  const KernelFamily& family = FamilyRegistry::find(h.family);
  const std::string key = size_key(family);
  const DeviceHeuristics& d = h.device;
  std::string out = fmt::format(
      "# exactune heuristics: chosen by exactune from reports/{}/{}/sweep.yaml ({}); the header and JSON are "
      "generated from this file.\n",
      yaml_comment_text(d.slug), yaml_comment_text(h.family), yaml_comment_text(d.name));
  out += format_comment(key, h.policy);
  fmt::format_to(std::back_inserter(out), "format_version: {}\nfamily: {}\npolicy: {}\ndevice:\n", h.format_version,
                 yaml_scalar(h.family), policy_name(h.policy));
  fmt::format_to(std::back_inserter(out), "  name: {}\n  slug: {}\n  arch: {}\n  sm_count: {}\n  default:\n",
                 yaml_scalar(d.name), yaml_scalar(d.slug), yaml_scalar(d.arch), d.sm_count);
  write_configuration(out, d.default_configuration, "    ");
  out += "  choices:\n";
  for (const Choice& c : d.choices) write_choice(out, c, key);
  out += yaml_comment(fmt::format("For a GPU without a table: {}.", family.global_default_reason()));
  out += "global_default:\n";
  write_configuration(out, h.global_default, "  ");
  return out;
}

// ----------------------------------------------------------- heuristics.yaml in
namespace {

using strict_yaml::Fields;
using strict_yaml::Source;
using strict_yaml::Value;

template <typename Int = std::int64_t>
Int positive(const Value& v) {
  const auto n = v.integer<Int>();
  if (n <= 0) v.source().fail(v.line(), "{} must be > 0, got {}", v.key(), n);
  return n;
}

// Reads heuristics.yaml strictly (strict_yaml: every key known, none repeated,
// none missing, every value of its type), and checks the choices are in the
// order select() relies on.
class HeuristicsReader {
 public:
  explicit HeuristicsReader(const Source& source) : source_(source) {}

  Heuristics read(std::string_view text) {
    const YAML::Node root = strict_yaml::load_document(text, source_, "a map that starts with 'format_version: 1'");
    // The version first: another version may well have other keys.
    const Value version = Fields(source_, root, line_of(root), "the top level", {})["format_version"];
    Heuristics h;
    h.format_version = version.integer<int>();
    if (h.format_version != kHeuristicsFormatVersion) {
      source_.fail(version.line(), "format_version {}: this exactune reads version {}", h.format_version,
                   kHeuristicsFormatVersion);
    }
    const Fields top(source_, root, line_of(root), "the top level",
                     {"format_version", "family", "policy", "device", "global_default"});
    const Value family = top["family"];
    h.family = family.nonempty_text();
    try {
      family_ = &FamilyRegistry::find(h.family);
    } catch (const input_error& e) {
      source_.fail(family.line(), "family: {}", e.what());
    }
    size_key_ = size_key(*family_);
    // A file without a policy predates policies: it was ranked by the L2-resident hot figure.
    h.policy = ChooserPolicy::l2_resident;
    if (const std::optional<Value> policy = top.optional("policy")) {
      try {
        h.policy = policy_named(policy->text());
      } catch (const input_error& e) {
        source_.fail(policy->line(), "policy: {}", e.what());
      }
    }
    h.device = device(top["device"]);
    h.global_default = configuration(top["global_default"].map("global_default", {"variant", "params"}));
    return h;
  }

 private:
  // A variant and its params: the family's axes in order, each a value of its
  // axis, together spelling the variant's name.
  Configuration configuration(const Fields& f) const {
    Configuration c;
    c.variant = f["variant"].nonempty_text();
    c.params = read_variant_params(*family_, f["params"], c.variant);
    return c;
  }

  DeviceHeuristics device(const Value& value) {
    const Fields d = value.map("device", {"name", "slug", "arch", "sm_count", "default", "choices"});
    DeviceHeuristics device;
    device.name = d["name"].nonempty_text();
    device.slug = d["slug"].nonempty_text();
    const Value arch = d["arch"];
    device.arch = arch.nonempty_text();
    try {
      compute_capability(device.arch);
    } catch (const error& e) {
      source_.fail(arch.line(), "arch: {}", e.what());
    }
    device.sm_count = positive<int>(d["sm_count"]);
    const Fields default_fields = d["default"].map("default", {"variant", "params"});
    device.default_configuration = configuration(default_fields);
    require_choosable(device.default_configuration, default_fields["variant"].line());
    const Value list = d["choices"];
    const std::vector<Value> items = list.list();
    if (items.empty()) source_.fail(list.line(), "choices must be a non-empty list");
    // A bucket comes from a shape of a sweep, and a sweep holds at most kMaxShapes.
    if (items.size() > kMaxShapes) {
      source_.fail(list.line(), "choices holds {} buckets, more than the {} shapes a sweep may hold", items.size(),
                   kMaxShapes);
    }
    std::vector<int> bound_lines;  // of each choice's max_rows, else of the choice
    for (const Value& item : items) add_choice(device.choices, bound_lines, item);
    require_unbounded_end(device.choices.back(), bound_lines.back());
    return device;
  }

  // Reads one choice and checks its place in the order select() relies on: it
  // takes the first bucket that holds the rows, so a size's buckets must be
  // together, ascending, and end with the unbounded one.
  void add_choice(std::vector<Choice>& choices, std::vector<int>& bound_lines, const Value& item) {
    std::vector<std::string> keys = {size_key_};
    keys.insert(keys.end(), kChoiceKeys.begin(), kChoiceKeys.end());
    const Fields f = item.map("a choice", keys);
    Choice c;
    const Value size = f[size_key_];
    c.size = positive<int>(size);
    if (const std::string problem = family_->parameter_problem(size_key_, c.size); !problem.empty()) {
      source_.fail(size.line(), "{}", problem);
    }
    const std::optional<Value> max_rows = f.optional("max_rows");
    const int bound_line = max_rows ? max_rows->line() : item.line();
    if (max_rows) c.max_rows = positive(*max_rows);
    c.chosen = configuration(f);
    // A table serves its choice at its size: it must be a variant there.
    if (const std::string why = family_->exclusion(c.chosen.params, c.size); !why.empty()) {
      source_.fail(f["variant"].line(), "variant {} is not in the space of family {} at {} {}: {}", c.chosen.variant,
                   family_->name(), size_key_, c.size, why);
    }
    require_choosable(c.chosen, f["variant"].line());
    const Value median = f["median_us"];
    c.median_us = median.real();
    if (!(c.median_us > 0) || !std::isfinite(c.median_us)) {
      source_.fail(median.line(), "median_us must be > 0, got {}", c.median_us);
    }
    const std::optional<Value> runner_up = f.optional("runner_up");
    const std::optional<Value> margin = f.optional("margin");
    if (runner_up.has_value() != margin.has_value()) {
      source_.fail(runner_up ? runner_up->line() : margin->line(),
                   "runner_up and margin come together (both, or neither when there was no other variant)");
    }
    if (runner_up) {
      c.runner_up = runner_up->nonempty_text();
      c.margin = margin->real();
      // runner_up / chosen - 1 of two times > 0.
      if (!std::isfinite(*c.margin) || *c.margin <= -1) {
        source_.fail(margin->line(), "margin must be a finite number > -1, got {}", margin->text());
      }
    }
    c.shape = read_shape_name(f["shape"]);
    c.shared = f["shared"].boolean();

    const Choice* previous = choices.empty() ? nullptr : &choices.back();
    const bool continues = previous != nullptr && previous->size == c.size;
    if (previous != nullptr && !continues) {
      require_unbounded_end(*previous, bound_lines.back());
      finished_sizes_.insert(previous->size);
    }
    if (finished_sizes_.contains(c.size) || (continues && !previous->max_rows)) {
      source_.fail(item.line(),
                   "{} {} already has its buckets above, up to an unbounded one; the buckets of a size go "
                   "together, ascending by max_rows",
                   size_key_, c.size);
    }
    if (continues && c.max_rows && *c.max_rows <= *previous->max_rows) {
      source_.fail(bound_line, "max_rows {} does not ascend from the previous bucket's {}", *c.max_rows,
                   *previous->max_rows);
    }
    choices.push_back(std::move(c));
    bound_lines.push_back(bound_line);
  }

  // What a table chooses is what the runtime launches: never a configuration
  // the family keeps out of the choice (KernelFamily::not_chosen_because).
  void require_choosable(const Configuration& c, int line) const {
    if (const std::string why = family_->not_chosen_because(c.params); !why.empty()) {
      source_.fail(line, "variant {} is never chosen by family {}'s tables: {}", c.variant, family_->name(), why);
    }
  }

  void require_unbounded_end(const Choice& last_of_size, int bound_line) const {
    if (last_of_size.max_rows) {
      source_.fail(bound_line,
                   "the last bucket of {} {} must have no max_rows, so that it holds every larger row count",
                   size_key_, last_of_size.size);
    }
  }

  const Source& source_;
  const KernelFamily* family_ = nullptr;
  std::string size_key_;
  std::set<int> finished_sizes_;  // sizes whose buckets ended with the unbounded one
};

}  // namespace

Heuristics parse_heuristics_yaml(std::string_view yaml_text, const std::string& source_name) {
  const Source source(source_name);
  return HeuristicsReader(source).read(yaml_text);
}

Heuristics load_heuristics_file(const std::string& path) {
  return parse_heuristics_yaml(read_text_file(path, "heuristics file"), path);
}

}  // namespace exactune
