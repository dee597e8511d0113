#include "report/heuristics_emitter.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string_view>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>
#include <exactune/shapes.hpp>

namespace exactune {
namespace {

constexpr const char* kGeneratedBy = "by exactune emit-header from heuristics.yaml; do not edit";

// What the generated files need of the family: its name (their namespace),
// size parameter (select()'s argument), axes and size fallbacks.
struct FamilyView {
  const KernelFamily& family;
  std::string size;  // the size parameter's name
  std::string size_description;
};

bool is_identifier(std::string_view text) {
  return !text.empty() && !std::isdigit(static_cast<unsigned char>(text.front())) &&
         std::all_of(text.begin(), text.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

FamilyView family_view(const Heuristics& h) {
  const KernelFamily& family = FamilyRegistry::find(h.family);
  FamilyView view{family, family.size_parameter(), {}};
  // select()'s other arguments and Entry's other members
  constexpr std::array<std::string_view, 6> kTaken = {"cc_major", "cc_minor", "sm_count", "rows", "max_rows", "config"};
  if (!is_identifier(family.name()) || !is_identifier(view.size) ||
      std::find(kTaken.begin(), kTaken.end(), view.size) != kTaken.end()) {
    throw error(fmt::format("family '{}' with size parameter '{}': both must be C++ identifiers, and the size "
                            "parameter none of {}, to name the header's namespace and select()'s argument",
                            family.name(), view.size, fmt::join(kTaken, ", ")));
  }
  for (const ParameterSpec& p : family.shape_parameters()) {
    if (p.name == view.size) view.size_description = p.description;
  }
  std::vector<std::pair<std::string, std::string>> fallbacks;  // (axis, to): each names a member of ArchDefault
  for (const SizeFallback& f : family.size_fallbacks()) {
    if (std::find(fallbacks.begin(), fallbacks.end(), std::pair(f.axis, f.to)) != fallbacks.end()) {
      throw error(fmt::format("family '{}': two size fallbacks turn {} into {}", family.name(), f.axis, f.to));
    }
    fallbacks.emplace_back(f.axis, f.to);
  }
  return view;
}

// Fallback rule 2's clause for one size fallback.
std::string fallback_clause(const SizeFallback& f, const std::string& size) {
  return fmt::format("where its {0} is {1} and {2} % {3} != 0 ({4}), the same configuration with {0} {5}", f.axis,
                     f.from, size, f.multiple, f.why, f.to);
}

// How select() falls back, in words: written into the header's comments and
// the JSON, so that both sets of consumers read the same rules.
std::vector<std::string> fallback_rules(const Heuristics& h, const FamilyView& view) {
  std::vector<std::string> clauses;
  for (const SizeFallback& f : view.family.size_fallbacks()) clauses.push_back(fallback_clause(f, view.size));
  std::string rule2 =
      "2. Otherwise, on a GPU of the same compute capability (this one at an untuned size, or one with another SM "
      "count): that architecture's default";
  if (clauses.size() == 1) rule2 += "; " + clauses.front();
  if (clauses.size() > 1) rule2 += fmt::format("; the first that applies of: {}", fmt::join(clauses, "; "));
  return {
      fmt::format("1. This GPU (same compute capability and SM count) at a tuned size ({}): the bucket that holds "
                  "the row count. A size's buckets ascend by max_rows; the last has none and holds every larger count.",
                  view.size),
      rule2 + ".",
      fmt::format("3. Any other GPU: the global default, {}, {}.", h.global_default.variant,
                  view.family.global_default_reason()),
  };
}

// The same configuration with the fallback's axis at its `to` value.
Configuration with_fallback(const Configuration& c, const SizeFallback& f, const KernelFamily& family) {
  Configuration narrow = c;
  for (Param& p : narrow.params) {
    if (p.axis == f.axis) p.value = f.to;
  }
  narrow.variant = family.variant_name(narrow.params);
  return narrow;
}

// The member of the header's ArchDefault that holds a fallback's configuration.
std::string fallback_member(const SizeFallback& f) { return fmt::format("config_{}_{}", f.axis, f.to); }

// How one of the family's axes appears in the header and the JSON: an axis
// whose values are all integers as an int, any other as an enum class of its
// values (named after the axis: an_axis -> AnAxis). Derived from the family, so
// that a new axis reaches the generated files without touching this file.
struct AxisForm {
  Axis axis;
  bool integer = false;
  std::string enum_name;
};

bool is_integer(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::vector<AxisForm> axis_forms(const KernelFamily& family) {
  std::vector<AxisForm> forms;
  for (const Axis& axis : family.axes()) {
    AxisForm form{axis, std::all_of(axis.values.begin(), axis.values.end(), is_integer), {}};
    if (!form.integer) {
      for (const std::string& value : axis.values) {
        if (!is_identifier(value)) {
          throw error(fmt::format("axis {}: value '{}' cannot name a C++ enumerator", axis.name, value));
        }
      }
      bool capital = true;
      for (char c : axis.name) {
        if (c != '_') form.enum_name += capital ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        capital = c == '_';
      }
    }
    forms.push_back(std::move(form));
  }
  return forms;
}

const AxisForm& form_of(const std::vector<AxisForm>& forms, const SizeFallback& f) {
  const auto it = std::find_if(forms.begin(), forms.end(), [&](const AxisForm& form) { return form.axis.name == f.axis; });
  const auto valid = [&](const std::string& value) {
    return it != forms.end() && std::find(it->axis.values.begin(), it->axis.values.end(), value) != it->axis.values.end();
  };
  if (!valid(f.from) || !valid(f.to) || f.multiple < 1) {
    throw error(fmt::format("size fallback {} {} -> {} (multiple {}): not values of one of the family's axes, or "
                            "no multiple",
                            f.axis, f.from, f.to, f.multiple));
  }
  return *it;
}

const std::string& value_of(const Configuration& c, const std::string& axis) {
  for (const Param& p : c.params) {
    if (p.axis == axis) return p.value;
  }
  throw error(fmt::format("variant {} has no value for axis {}", c.variant, axis));
}

// ------------------------------------------------------------------ the header

// Text from the yaml as it may stand in a // comment: no line breaks, and no
// backslash that could splice the next line into the comment.
std::string comment_safe(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '\\') c = '?';
  }
  return out;
}

// `text` as // comment lines of at most `width` characters, wrapped at spaces.
std::string comment_lines(std::string_view text, std::string_view indent, std::size_t width = 100) {
  std::string out, line;
  auto flush = [&] {
    out += fmt::format("{}//{}\n", indent, line);
    line.clear();
  };
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find(' ', start), text.size());
    const std::string_view word = text.substr(start, end - start);
    if (!line.empty() && indent.size() + 2 + line.size() + 1 + word.size() > width) flush();
    line += fmt::format(" {}", word);
    start = end + 1;
  }
  if (!line.empty()) flush();
  return out;
}

// The namespace of one family's header: several can be included together.
std::string cpp_namespace(const FamilyView& view) {
  return fmt::format("exactune_heuristics::{}", view.family.name());
}

std::string cpp_types(const std::vector<AxisForm>& forms, const FamilyView& view) {
  std::string out = fmt::format("namespace {} {{\n\n", cpp_namespace(view));
  for (const AxisForm& f : forms) {
    if (f.integer) continue;
    out += comment_lines(comment_safe(f.axis.description), "");
    fmt::format_to(std::back_inserter(out), "enum class {} {{ {} }};\n", f.enum_name, fmt::join(f.axis.values, ", "));
  }
  out += "\n// One variant of the kernel: a value per axis, and exactune's name for it.\nstruct LaunchConfig {\n";
  for (const AxisForm& f : forms) {
    fmt::format_to(std::back_inserter(out), "  {} {};", f.integer ? "int" : f.enum_name, f.axis.name);
    out += f.integer ? fmt::format("  // {}\n", comment_safe(f.axis.description)) : "\n";
  }
  return out + "  const char* variant;\n};\n";
}

// An axis value as C++: an int, or an enumerator of the axis's enum class.
std::string cpp_value(const AxisForm& f, const std::string& value) {
  return f.integer ? value : fmt::format("{}::{}", f.enum_name, value);
}

std::string cpp_config(const Configuration& c, const std::vector<AxisForm>& forms) {
  std::vector<std::string> fields;
  for (const AxisForm& f : forms) fields.push_back(cpp_value(f, value_of(c, f.axis.name)));
  return fmt::format("{{{}, \"{}\"}}", fmt::join(fields, ", "), c.variant);
}

// The rows a bucket holds, given the bound of the bucket before it (none for the first).
std::string row_range(const Choice& c, std::optional<std::int64_t> previous_bound) {
  if (!c.max_rows) return previous_bound ? fmt::format("rows > {}", *previous_bound) : "every row count";
  if (!previous_bound) return fmt::format("rows <= {}", *c.max_rows);
  return fmt::format("rows {}..{}", *previous_bound + 1, *c.max_rows);
}

std::string describe_choice(const Choice& c, std::optional<std::int64_t> previous_bound, const FamilyView& view) {
  std::string text = fmt::format("{} {}, {}: {} us on {}", view.size, c.size, row_range(c, previous_bound),
                                 c.median_us, comment_safe(c.shape));
  if (c.margin) text += fmt::format("; runner-up {} {:+.2f}%", c.runner_up, *c.margin * 100);
  if (c.shared) text += "; shared by the size's buckets";
  return text;
}

std::string table_types(const FamilyView& view) {
  std::string out = fmt::format(R"(
// One bucket of one GPU's table: at `{0}`, rows up to max_rows (-1: no bound).
struct Entry {{
  int cc_major;
  int cc_minor;
  int sm_count;
  int {0};
  long long max_rows;
  LaunchConfig config;
}};

// A GPU's default: for its sizes without a table, and for other GPUs of its
// architecture.
struct ArchDefault {{
  int cc_major;
  int cc_minor;
  int sm_count;  // of the GPU it was measured on
  LaunchConfig config;
)",
                                view.size);
  for (const SizeFallback& f : view.family.size_fallbacks()) {
    fmt::format_to(std::back_inserter(out), "  LaunchConfig {};  // the same with {} {}, for {} % {} != 0\n",
                   fallback_member(f), f.axis, f.to, view.size, f.multiple);
  }
  return out + "};\n\n";
}

std::string select_function(const std::vector<AxisForm>& forms, const FamilyView& view) {
  std::string out = fmt::format(R"(
constexpr LaunchConfig select(int cc_major, int cc_minor, int sm_count, int {0}, long long rows) {{
  for (const Entry& e : kTable) {{  // 1.
    const bool same_gpu = e.cc_major == cc_major && e.cc_minor == cc_minor && e.sm_count == sm_count;
    if (same_gpu && e.{0} == {0} && (e.max_rows < 0 || rows <= e.max_rows)) return e.config;
  }}
  for (const ArchDefault& d : kArchDefaults) {{  // 2.
    if (d.cc_major == cc_major && d.cc_minor == cc_minor) {{
)",
                                view.size);
  for (const SizeFallback& f : view.family.size_fallbacks()) {
    fmt::format_to(std::back_inserter(out), "      if (d.config.{} == {} && {} % {} != 0) return d.{};\n", f.axis,
                   cpp_value(form_of(forms, f), f.from), view.size, f.multiple, fallback_member(f));
  }
  return out + fmt::format(R"(      return d.config;
    }}
  }}
  return kGlobalDefault;  // 3.
}}

}}  // namespace {}
)",
                           cpp_namespace(view));
}

}  // namespace

std::string emit_header(const Heuristics& h) {
  const FamilyView view = family_view(h);
  const DeviceHeuristics& d = h.device;
  const ComputeCapability cc = compute_capability(d.arch);
  const std::vector<AxisForm> forms = axis_forms(view.family);
  const std::string gpu = fmt::format("{} ({}, {} SMs)", comment_safe(d.name), d.arch, d.sm_count);
  std::string out = fmt::format("// Generated {}.\n//\n", kGeneratedBy);
  out += comment_lines(
      fmt::format("The launch configuration of the fused kernel {}: {}. Chosen by exactune among the variants "
                  "proven bit-exact, from timings on {}. Self-contained C++17, for C++ and the host side of CUDA "
                  "code; each family's header has a namespace of its own, so that several can be included together.",
                  h.family, comment_safe(view.family.description()), gpu),
      "");
  out += "//\n";
  out += comment_lines(
      fmt::format("Use: {0}::select(cc_major, cc_minor, sm_count, {1}, rows), where {1} is the size the variants "
                  "are specialised for and rows the number of rows of {1} elements one call processes. It answers by "
                  "the first rule that applies:",
                  cpp_namespace(view), view.size),
      "");
  for (const std::string& rule : fallback_rules(h, view)) out += comment_lines(rule, "");
  out += "#pragma once\n\n" + cpp_types(forms, view) + table_types(view);
  out += fmt::format("// {}\ninline constexpr Entry kTable[] = {{\n", gpu);
  for (std::size_t i = 0; i < d.choices.size(); ++i) {
    const Choice& c = d.choices[i];
    const bool continues = i > 0 && d.choices[i - 1].size == c.size;
    out += comment_lines(describe_choice(c, continues ? d.choices[i - 1].max_rows : std::nullopt, view), "    ");
    fmt::format_to(std::back_inserter(out), "    {{{}, {}, {}, {}, {}, {}}},\n", cc.major, cc.minor, d.sm_count,
                   c.size, c.max_rows ? *c.max_rows : -1, cpp_config(c.chosen, forms));
  }
  out += "};\n\n// The configuration chosen most often on each GPU.\ninline constexpr ArchDefault kArchDefaults[] = {\n";
  out += comment_lines(gpu, "    ");
  fmt::format_to(std::back_inserter(out), "    {{{}, {}, {},\n     {}", cc.major, cc.minor, d.sm_count,
                 cpp_config(d.default_configuration, forms));
  for (const SizeFallback& f : view.family.size_fallbacks()) {
    form_of(forms, f);  // checks the fallback against the axes
    out += ",\n     " + cpp_config(with_fallback(d.default_configuration, f, view.family), forms);
  }
  out += "},\n};\n\n";
  out += comment_lines(fmt::format("Rule 3, the global default: {}.", comment_safe(view.family.global_default_reason())), "");
  fmt::format_to(std::back_inserter(out), "inline constexpr LaunchConfig kGlobalDefault = {};\n",
                 cpp_config(h.global_default, forms));
  return out + select_function(forms, view);
}

// -------------------------------------------------------------------- the JSON
namespace {

using Json = nlohmann::ordered_json;  // keys in the order written: "generated" first

Json json_value(const AxisForm& f, const std::string& value) { return f.integer ? Json(std::stoi(value)) : Json(value); }

Json json_config(const Configuration& c, const std::vector<AxisForm>& forms) {
  Json config = {{"variant", c.variant}};
  for (const AxisForm& f : forms) config[f.axis.name] = json_value(f, value_of(c, f.axis.name));
  return config;
}

Json json_choice(const Choice& c, const std::vector<AxisForm>& forms, const FamilyView& view) {
  return Json{{view.size, c.size},
              {"max_rows", c.max_rows ? Json(*c.max_rows) : Json(nullptr)},
              {"config", json_config(c.chosen, forms)},
              {"median_us", c.median_us},
              {"runner_up", c.margin ? Json(c.runner_up) : Json(nullptr)},
              {"margin", c.margin ? Json(*c.margin) : Json(nullptr)},
              {"shape", c.shape},
              {"shared", c.shared}};
}

// Rule 2's fallbacks of the device default, each with its configuration.
Json json_fallbacks(const Configuration& default_configuration, const std::vector<AxisForm>& forms,
                    const FamilyView& view) {
  Json fallbacks = Json::array();
  for (const SizeFallback& f : view.family.size_fallbacks()) {
    const AxisForm& form = form_of(forms, f);
    fallbacks.push_back({{"axis", f.axis},
                         {"from", json_value(form, f.from)},
                         {"to", json_value(form, f.to)},
                         {"multiple", f.multiple},
                         {"config", json_config(with_fallback(default_configuration, f, view.family), forms)}});
  }
  return fallbacks;
}

}  // namespace

std::string emit_json(const Heuristics& h) {
  const FamilyView view = family_view(h);
  const DeviceHeuristics& d = h.device;
  const ComputeCapability cc = compute_capability(d.arch);
  const std::vector<AxisForm> forms = axis_forms(view.family);
  Json table = Json::array();
  for (const Choice& c : d.choices) table.push_back(json_choice(c, forms, view));
  const Json device = {{"name", d.name},
                       {"slug", d.slug},
                       {"arch", d.arch},
                       {"cc_major", cc.major},
                       {"cc_minor", cc.minor},
                       {"sm_count", d.sm_count},
                       {"default", json_config(d.default_configuration, forms)},
                       {"default_fallbacks", json_fallbacks(d.default_configuration, forms, view)},
                       {"table", table}};
  const Json root = {
      {"generated", kGeneratedBy},
      {"format_version", h.format_version},
      {"family", h.family},
      {"select",
       {{"inputs", fmt::format("cc_major, cc_minor, sm_count, {}, rows", view.size)},
        {"size", view.size},
        {"size_description", view.size_description},
        {"rows", fmt::format("the number of rows of {} elements one call processes", view.size)},
        {"fallback", fallback_rules(h, view)}}},
      {"devices", Json::array({device})},
      {"global_default", json_config(h.global_default, forms)}};
  return root.dump(2) + "\n";
}

}  // namespace exactune
