#include "store/heuristics_file.hpp"

#include <fmt/format.h>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <set>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>

#include "shapes/shape_parameters_reader.hpp"
#include "store/gpu_identity.hpp"
#include "store/heuristics.hpp"
#include "store/variant_params.hpp"
#include "util/strict_yaml.hpp"
#include "util/text_file.hpp"
#include "util/yaml_node_text.hpp"
#include "util/yaml_writer.hpp"

namespace exactune {

// ---------------------------------------------------------- heuristics.yaml out
namespace {

// The keys of a choice besides the size's, whose key is the family's size parameter.
const std::vector<std::string> kChoiceKeys = {"max_rows", "variant", "params", "median_us",   "runner_up",
                                              "margin",   "shape",   "shared", "same_as_best"};

// The key a choice's size is written under: the family's size parameter.
std::string size_key(const KernelFamily& family) {
  std::string key = family.size_parameter();
  if (key.empty() || std::find(kChoiceKeys.begin(), kChoiceKeys.end(), key) != kChoiceKeys.end()) {
    throw error(
        fmt::format("family {}: its size parameter '{}' cannot key a choice in heuristics.yaml", family.name(), key));
  }
  return key;
}

std::string yaml_params(const std::vector<Param>& params) {
  yaml::KeyValues fields;
  for (const Param& p : params) fields.emplace_back(p.axis, yaml::string(p.value));
  return yaml::flow_map(fields);
}

void write_configuration(std::string& out, const Configuration& c, std::string_view indent) {
  fmt::format_to(std::back_inserter(out), "{0}variant: {1}\n{0}params: {2}\n", indent, yaml::string(c.variant),
                 yaml_params(c.params));
}

void write_choice(std::string& out, const Choice& c, const std::string& key, int format_version) {
  auto line = [&](std::string_view name, const auto& value) {
    fmt::format_to(std::back_inserter(out), "      {}: {}\n", name, value);
  };
  fmt::format_to(std::back_inserter(out), "    - {}: {}\n", key, c.size);
  if (c.max_rows) line("max_rows", *c.max_rows);
  write_configuration(out, c.chosen, "      ");
  line("median_us", yaml::number(c.median_us));
  if (!c.runner_up.empty()) line("runner_up", yaml::string(c.runner_up));
  if (c.margin) line("margin", yaml::number(*c.margin));
  line("shape", yaml::string(c.shape));
  line("shared", c.shared);
  // Version 1 did not record the set: a file read from one is written back as it was.
  if (format_version >= 2) {
    std::vector<std::string> names;
    for (const std::string& name : c.same_as_best) names.push_back(yaml::string(name));
    line("same_as_best", yaml::flow_list(names));
  }
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
         yaml::comment(fmt::format(
             "Policy {}: variants are ranked by {}. Per size ({}), row counts fall into buckets, one per timed "
             "shape: a bucket holds rows up to max_rows, the geometric midpoint between its shape's row count and "
             "the next one's (the last bucket has no max_rows). same_as_best: the bit-exact variants of the "
             "bucket's shape the same as the fastest (their samples over the copy compared, `same` within 2%; "
             "without samples, an equal median). A choice is the one of them in the same-as-best set of the most "
             "other timed regimes, then with the fewest registers, then first by name; unless the configuration "
             "shared by all buckets of the size (shared: true) is within noise of the fastest there. runner_up is "
             "the fastest other exact variant, margin = runner_up / chosen - 1 (negative where a slower one was "
             "kept). The device default serves sizes without a table: of the configurations timed in every "
             "bucket, the one chosen most often (where none was, of those chosen). The gate checks the policy's "
             "regimes, and cold.",
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
      yaml::comment_text(d.slug), yaml::comment_text(h.family), yaml::comment_text(d.name));
  out += format_comment(key, h.policy);
  fmt::format_to(std::back_inserter(out), "format_version: {}\nfamily: {}\npolicy: {}\ndevice:\n", h.format_version,
                 yaml::string(h.family), policy_name(h.policy));
  fmt::format_to(std::back_inserter(out), "  name: {}\n  slug: {}\n  arch: {}\n  sm_count: {}\n  default:\n",
                 yaml::string(d.name), yaml::string(d.slug), yaml::string(d.arch), d.sm_count);
  write_configuration(out, d.default_configuration, "    ");
  out += "  choices:\n";
  for (const Choice& c : d.choices) write_choice(out, c, key, h.format_version);
  out += yaml::comment(fmt::format("For a GPU without a table: {}.", family.global_default_reason()));
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
    const YAML::Node root = strict_yaml::load_document(text, source_, "a map that starts with 'format_version: 2'");
    // The version first: another version may well have other keys.
    const Value version = Fields(source_, root, line_of(root), "the top level", {})["format_version"];
    Heuristics h;
    h.format_version = version.integer<int>();
    if (h.format_version < kOldestHeuristicsFormatVersion || h.format_version > kHeuristicsFormatVersion) {
      source_.fail(version.line(), "format_version {}: this exactune reads versions {} to {}", h.format_version,
                   kOldestHeuristicsFormatVersion, kHeuristicsFormatVersion);
    }
    format_version_ = h.format_version;
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
    GpuIdentity gpu = read_gpu_identity(d);
    device.name = std::move(gpu.name);
    device.slug = std::move(gpu.slug);
    device.arch = std::move(gpu.arch);
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
    // Version 2 records the set every choice was picked from; version 1 had none.
    if (format_version_ >= 2) {
      c.same_as_best = same_as_best(f["same_as_best"]);
    } else if (const std::optional<Value> same = f.optional("same_as_best")) {
      source_.fail(same->line(), "same_as_best is of format_version 2; this file says 1");
    }

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

  // The names of a choice's same-as-best set: variant names, each once, in name
  // order as written; empty where the table was made by hand, not chosen.
  std::vector<std::string> same_as_best(const Value& value) const {
    std::vector<std::string> names;
    for (const Value& item : value.list()) {
      std::string name = item.nonempty_text();
      if (!names.empty() && name <= names.back()) {
        source_.fail(item.line(), "same_as_best must list each variant once, by name: '{}' after '{}'", name,
                     names.back());
      }
      names.push_back(std::move(name));
    }
    return names;
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
                   "the last bucket of {} {} must have no max_rows, so that it holds every larger row count", size_key_,
                   last_of_size.size);
    }
  }

  const Source& source_;
  const KernelFamily* family_ = nullptr;
  std::string size_key_;
  std::set<int> finished_sizes_;  // sizes whose buckets ended with the unbounded one
  int format_version_ = kHeuristicsFormatVersion;
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
