#include "heuristics.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "error.hpp"
#include "text_file.hpp"
#include "yaml_node_text.hpp"
#include "layer_norm_modulate_family.hpp"

namespace exactune {

const Choice* DeviceHeuristics::choice_for(int hidden, std::int64_t rows) const {
  for (const Choice& c : choices) {
    if (c.covers(hidden, rows)) return &c;
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

// ---------------------------------------------------------------- the chooser
namespace {

// An exact variant with a hot timing on one shape: all the chooser compares.
struct Timed {
  const VariantResult* result;
  double median_us;
  double spread;
};

// A token-count bucket of one hidden size and the shape whose timings decide it.
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

std::vector<Timed> ranked_candidates(const ShapeResult& shape) {
  std::vector<Timed> ranked;
  for (const VariantResult& v : shape.variants) {
    if (v.exact && v.hot && v.hot->median_us > 0) ranked.push_back({&v, v.hot->median_us, v.hot->spread()});
  }
  // Names break ties so that the order, and so the choice, never depends on the sweep's order.
  std::sort(ranked.begin(), ranked.end(), [](const Timed& a, const Timed& b) {
    return std::tie(a.median_us, a.result->variant) < std::tie(b.median_us, b.result->variant);
  });
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

// One bucket per distinct row count among the shapes of `hidden` that have a
// timed exact variant. Where several shapes share a row count, the first in
// the sweep's order is the evidence.
std::vector<Bucket> buckets_of(const SweepResults& results, int hidden) {
  std::map<std::int64_t, Bucket> by_rows;
  for (const ShapeResult& shape : results.shapes) {
    if (shape.shape.hidden != hidden) continue;
    std::vector<Timed> ranked = ranked_candidates(shape);
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

Choice make_choice(int hidden, const Bucket& bucket, const Timed& chosen, bool shared) {
  Choice c;
  c.hidden = hidden;
  c.max_rows = bucket.max_rows;
  c.chosen = {chosen.result->variant, chosen.result->params};
  c.median_us = round_to_nanosecond(chosen.median_us);
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

std::vector<Choice> choose_for_hidden(int hidden, const std::vector<Bucket>& buckets, const ChooserOptions& options) {
  const std::string shared = shared_configuration(buckets);
  std::vector<Choice> choices;
  for (const Bucket& b : buckets) {
    const Timed& best = b.ranked.front();
    const Timed* candidate = shared.empty() ? nullptr : b.find(shared);
    const bool use_shared = candidate != nullptr && within_noise(*candidate, best, options.min_noise);
    choices.push_back(make_choice(hidden, b, use_shared ? *candidate : best, use_shared));
  }
  return choices;
}

// The configuration chosen most often; ties go to the one that is timed
// (exact) on more of the buckets' shapes, then to the least total hot time over
// them, then to the name.
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

Configuration global_default_configuration() {
  static const std::map<std::string, std::string, std::less<>> aten = {
      {"num_warps", "4"}, {"rows_per_cta", "1"}, {"tail", "predicated"}, {"vector_bytes", "8"}, {"pass2", "reload"}};
  const KernelFamily& family = layer_norm_modulate_family();
  Configuration c;
  for (const Axis& axis : family.axes()) {
    const auto it = aten.find(axis.name);
    c.params.push_back({axis.name, it != aten.end() ? it->second : axis.values.front()});
  }
  c.variant = family.variant_name(c.params);
  return c;
}

Heuristics choose_heuristics(const SweepResults& results, const ChooserOptions& options) {
  const KernelFamily& family = layer_norm_modulate_family();
  Heuristics h;
  h.family = results.family.empty() ? family.name() : results.family;
  h.device.name = results.device.name;
  h.device.slug = results.device.slug;
  h.device.arch = results.device.arch;
  h.device.sm_count = results.device.sm_count;

  std::map<int, std::vector<Bucket>> buckets;  // by hidden size, ascending
  for (const ShapeResult& s : results.shapes) {
    if (!buckets.contains(s.shape.hidden)) buckets.emplace(s.shape.hidden, buckets_of(results, s.shape.hidden));
  }
  std::vector<const Bucket*> all_buckets;
  for (const auto& [hidden, of_hidden] : buckets) {
    for (const Bucket& b : of_hidden) all_buckets.push_back(&b);
    for (Choice& c : choose_for_hidden(hidden, of_hidden, options)) h.device.choices.push_back(std::move(c));
  }
  if (h.device.choices.empty()) {
    throw error(fmt::format("no shape of the sweep on {} has an exact, timed variant: nothing to choose from "
                            "(timing needs a GPU)",
                            results.device.name.empty() ? "this machine" : results.device.name));
  }
  h.device.default_configuration = most_chosen(h.device.choices, all_buckets);
  h.global_default = global_default_configuration();
  return h;
}

std::vector<std::pair<std::string, std::vector<std::string>>> contenders(const SweepResults& results, int top_n) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const ShapeResult& shape : results.shapes) {
    std::vector<std::string> names;
    for (const Timed& t : ranked_candidates(shape)) {
      if (static_cast<int>(names.size()) >= top_n) break;
      names.push_back(t.result->variant);
    }
    if (!names.empty()) out.emplace_back(shape.shape.name, std::move(names));
  }
  return out;
}

// ---------------------------------------------------------- heuristics.yaml out
namespace {

// A string as a YAML scalar: plain when no YAML reader could take it for
// anything else (a bool, a null, a number of another spelling, syntax), else
// double-quoted (a JSON string is a valid YAML double-quoted one).
std::string yaml_scalar(const std::string& text) {
  static const std::set<std::string, std::less<>> kReserved = {"true", "false", "yes", "no",  "on",  "off",
                                                               "y",    "n",     "null", "nan", "inf"};
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool plain_safe =
      !text.empty() && std::isalnum(static_cast<unsigned char>(text.front())) && text.back() != ' ' &&
      !kReserved.contains(lower) && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::string_view(" ._-()/+").find(c) != std::string_view::npos;
      });
  return plain_safe ? text : nlohmann::json(text).dump();
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

void write_choice(std::string& out, const Choice& c) {
  auto line = [&](std::string_view key, const auto& value) {
    fmt::format_to(std::back_inserter(out), "      {}: {}\n", key, value);
  };
  fmt::format_to(std::back_inserter(out), "    - hidden: {}\n", c.hidden);
  if (c.max_rows) line("max_rows", *c.max_rows);
  write_configuration(out, c.chosen, "      ");
  line("median_us", c.median_us);
  if (!c.runner_up.empty()) line("runner_up", yaml_scalar(c.runner_up));
  if (c.margin) line("margin", *c.margin);
  line("shape", yaml_scalar(c.shape));
  line("shared", c.shared);
}

constexpr const char* kFormatComment =
    "#\n"
    "# Per hidden size, token counts fall into buckets, one per timed shape: a bucket\n"
    "# holds rows up to max_rows, the geometric midpoint between its shape's row count\n"
    "# and the next one's (the last bucket has no max_rows). A choice is the fastest\n"
    "# bit-exact variant of its bucket's shape, unless the configuration shared by all\n"
    "# buckets of the hidden size (shared: true) is within noise of it there.\n"
    "# median_us is the choice's hot median on that shape; runner_up the fastest other\n"
    "# exact variant, margin = runner_up median / chosen median - 1 (negative where the\n"
    "# shared configuration was kept). The device default serves hidden sizes without\n"
    "# a table: the configuration chosen most often.\n"
    "# Regenerate the header and JSON: exactune emit-header --from heuristics.yaml\n";

}  // namespace

std::string to_heuristics_yaml(const Heuristics& h) {
  const DeviceHeuristics& d = h.device;
  std::string out = fmt::format(
      "# exactune heuristics: chosen by exactune from reports/{}/sweep.yaml ({}); the header and JSON are "
      "generated from this file.\n",
      d.slug, d.name);
  out += kFormatComment;
  fmt::format_to(std::back_inserter(out), "format_version: {}\nfamily: {}\ndevice:\n", h.format_version,
                 yaml_scalar(h.family));
  fmt::format_to(std::back_inserter(out), "  name: {}\n  slug: {}\n  arch: {}\n  sm_count: {}\n  default:\n",
                 yaml_scalar(d.name), yaml_scalar(d.slug), yaml_scalar(d.arch), d.sm_count);
  write_configuration(out, d.default_configuration, "    ");
  out += "  choices:\n";
  for (const Choice& c : d.choices) write_choice(out, c);
  out +=
      "# For a GPU without a table: aten's own launch shape (4 warps, one row per CTA,\n"
      "# every chunk guarded, 8-byte loads, x read twice), valid for every hidden % 4 == 0.\n"
      "global_default:\n";
  write_configuration(out, h.global_default, "  ");
  return out;
}

// ----------------------------------------------------------- heuristics.yaml in
namespace {

struct Field {
  std::string key;
  YAML::Node key_node;
  YAML::Node value;
  // An empty value's mark points at the next token, so errors about it name the key's line.
  int line() const { return line_of(value.IsNull() ? key_node : value); }
};

// Reads heuristics.yaml strictly: every key known, none repeated, none missing,
// every value of its type, and the choices in the order select() relies on.
class HeuristicsReader {
 public:
  explicit HeuristicsReader(const std::string& source) : source_(source) {}

  Heuristics read(std::string_view text) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      fail(std::max(e.mark.line, 0) + 1, "YAML syntax error: {}", e.msg);
    }
    const auto top = fields(root, 1, "the top level", {"format_version", "family", "device", "global_default"});
    Heuristics h;
    h.format_version = integer(top.at("format_version"));
    if (h.format_version != kHeuristicsFormatVersion) {
      fail(top.at("format_version").line(), "format_version {}: this exactune reads version {}", h.format_version,
           kHeuristicsFormatVersion);
    }
    h.family = text_of(top.at("family"));
    if (h.family != layer_norm_modulate_family().name()) {
      fail(top.at("family").line(), "family '{}': this exactune emits tables for '{}' only", h.family,
           layer_norm_modulate_family().name());
    }
    h.device = device(top.at("device"));
    h.global_default = configuration(top.at("global_default"));
    return h;
  }

 private:
  template <typename... Args>
  [[noreturn]] void fail(int line, fmt::format_string<Args...> what, Args&&... args) const {
    throw error(fmt::format("{}:{}: {}", source_, line, fmt::format(what, std::forward<Args>(args)...)));
  }

  // The entries of a map that must hold exactly `keys`.
  std::map<std::string, Field> fields(const YAML::Node& node, int line, std::string_view what,
                                      std::initializer_list<std::string_view> keys,
                                      std::initializer_list<std::string_view> optional_keys = {}) const {
    if (!node.IsMap()) fail(node.IsNull() ? line : line_of(node), "{} must be a map", what);
    std::map<std::string, Field> result;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
      const bool known = std::find(keys.begin(), keys.end(), key) != keys.end() ||
                         std::find(optional_keys.begin(), optional_keys.end(), key) != optional_keys.end();
      if (!known) fail(line_of(it->first), "unknown key '{}' in {}", key, what);
      if (!result.try_emplace(key, Field{key, it->first, it->second}).second) {
        fail(line_of(it->first), "key '{}' appears twice in {}", key, what);
      }
    }
    for (std::string_view key : keys) {
      if (!result.contains(std::string(key))) fail(line_of(node), "{} is missing key '{}'", what, key);
    }
    return result;
  }

  const std::string& scalar(const Field& f, std::string_view expected) const {
    if (!f.value.IsScalar()) fail(f.line(), "{} must be {}", f.key, expected);
    return f.value.Scalar();
  }

  std::string text_of(const Field& f) const {
    const std::string& value = scalar(f, "a string");
    if (value.empty()) fail(f.line(), "{} must not be empty", f.key);
    return value;
  }

  template <typename Number>
  Number parse_number(const Field& f, std::string_view expected) const {
    const std::string& value = scalar(f, expected);
    Number n{};
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size()) fail(f.line(), "{} must be {}, got '{}'", f.key, expected, value);
    return n;
  }
  std::int64_t integer(const Field& f) const { return parse_number<std::int64_t>(f, "an integer"); }
  double number(const Field& f) const { return parse_number<double>(f, "a number"); }
  std::int64_t positive(const Field& f) const {
    const std::int64_t n = integer(f);
    if (n <= 0) fail(f.line(), "{} must be > 0, got {}", f.key, n);
    return n;
  }

  bool boolean(const Field& f) const {
    const std::string& value = scalar(f, "true or false");
    if (value != "true" && value != "false") fail(f.line(), "{} must be true or false, got '{}'", f.key, value);
    return value == "true";
  }

  // A variant and its params: the family's axes in order, each a value of its
  // axis, together spelling the variant's name.
  Configuration configuration_in(const std::map<std::string, Field>& map) const {
    Configuration c;
    c.variant = text_of(map.at("variant"));
    const Field& params = map.at("params");
    if (!params.value.IsMap()) fail(params.line(), "params must be a map of axis: value");
    const KernelFamily& family = layer_norm_modulate_family();
    const std::vector<Axis> axes = family.axes();
    std::vector<std::string> axis_names;
    for (const Axis& a : axes) axis_names.push_back(a.name);
    auto it = params.value.begin();
    for (const Axis& axis : axes) {
      if (it == params.value.end() || !it->first.IsScalar() || it->first.Scalar() != axis.name) {
        fail(params.line(), "params of {} must give {} in this order", c.variant, fmt::join(axis_names, ", "));
      }
      const std::string value = it->second.IsScalar() ? it->second.Scalar() : "";
      if (std::find(axis.values.begin(), axis.values.end(), value) == axis.values.end()) {
        fail(params.line(), "params: {} '{}' is not one of {}", axis.name, value, fmt::join(axis.values, ", "));
      }
      c.params.push_back({axis.name, value});
      ++it;
    }
    if (it != params.value.end()) {
      fail(params.line(), "params of {} must give {} and nothing else", c.variant, fmt::join(axis_names, ", "));
    }
    const std::string spelled = family.variant_name(c.params);
    if (spelled != c.variant) fail(params.line(), "params spell variant {}, not {}", spelled, c.variant);
    return c;
  }
  Configuration configuration(const Field& f) const {
    return configuration_in(fields(f.value, f.line(), f.key, {"variant", "params"}));
  }

  DeviceHeuristics device(const Field& f) const {
    const auto d = fields(f.value, f.line(), "device", {"name", "slug", "arch", "sm_count", "default", "choices"});
    DeviceHeuristics device;
    device.name = text_of(d.at("name"));
    device.slug = text_of(d.at("slug"));
    device.arch = text_of(d.at("arch"));
    try {
      compute_capability(device.arch);
    } catch (const error& e) {
      fail(d.at("arch").line(), "arch: {}", e.what());
    }
    device.sm_count = static_cast<int>(positive(d.at("sm_count")));
    device.default_configuration = configuration(d.at("default"));
    const Field& list = d.at("choices");
    if (!list.value.IsSequence() || list.value.size() == 0) fail(list.line(), "choices must be a non-empty list");
    std::vector<int> bound_lines;  // of each choice's max_rows, else of the choice
    for (const YAML::Node& item : list.value) add_choice(device.choices, bound_lines, item, list.line());
    require_unbounded_end(device.choices.back(), bound_lines.back());
    return device;
  }

  // Reads one choice and checks its place in the order select() relies on: it
  // takes the first bucket that holds the rows, so a hidden size's buckets must
  // be together, ascending, and end with the unbounded one.
  void add_choice(std::vector<Choice>& choices, std::vector<int>& bound_lines, const YAML::Node& node,
                  int list_line) const {
    const auto f = fields(node, list_line, "a choice", {"hidden", "variant", "params", "median_us", "shape", "shared"},
                          {"max_rows", "runner_up", "margin"});
    Choice c;
    c.hidden = static_cast<int>(positive(f.at("hidden")));
    const int bound_line = f.contains("max_rows") ? f.at("max_rows").line() : line_of(node);
    if (f.contains("max_rows")) c.max_rows = positive(f.at("max_rows"));
    c.chosen = configuration_in(f);
    c.median_us = number(f.at("median_us"));
    if (c.median_us <= 0) fail(f.at("median_us").line(), "median_us must be > 0, got {}", c.median_us);
    if (f.contains("runner_up") != f.contains("margin")) {
      const Field& present = f.contains("runner_up") ? f.at("runner_up") : f.at("margin");
      fail(present.line(), "runner_up and margin come together (both, or neither when there was no other variant)");
    }
    if (f.contains("runner_up")) {
      c.runner_up = text_of(f.at("runner_up"));
      c.margin = number(f.at("margin"));
    }
    c.shape = text_of(f.at("shape"));
    c.shared = boolean(f.at("shared"));

    const Choice* previous = choices.empty() ? nullptr : &choices.back();
    const bool continues = previous != nullptr && previous->hidden == c.hidden;
    if (previous != nullptr && !continues) require_unbounded_end(*previous, bound_lines.back());
    for (const Choice& earlier : choices) {
      if (earlier.hidden == c.hidden && (!continues || !earlier.max_rows)) {
        fail(line_of(node), "hidden {} already has its buckets above, up to an unbounded one; a hidden size's "
                            "buckets go together, ascending by max_rows",
             c.hidden);
      }
    }
    if (continues && c.max_rows && *c.max_rows <= *previous->max_rows) {
      fail(bound_line, "max_rows {} does not ascend from the previous bucket's {}", *c.max_rows, *previous->max_rows);
    }
    choices.push_back(std::move(c));
    bound_lines.push_back(bound_line);
  }

  void require_unbounded_end(const Choice& last_of_hidden, int bound_line) const {
    if (last_of_hidden.max_rows) {
      fail(bound_line, "the last bucket of hidden {} must have no max_rows, so that it holds every larger row count",
           last_of_hidden.hidden);
    }
  }

  std::string source_;
};

}  // namespace

Heuristics parse_heuristics_yaml(std::string_view yaml_text, const std::string& source) {
  return HeuristicsReader(source).read(yaml_text);
}

Heuristics load_heuristics_file(const std::string& path) { return parse_heuristics_yaml(read_text_file(path, "heuristics file"), path); }

}  // namespace exactune
