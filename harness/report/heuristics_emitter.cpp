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
#include "report/family_json.hpp"
#include "util/gpu_arch.hpp"
#include "store/heuristics.hpp"
#include "store/family_tables.hpp"

namespace exactune {
namespace {

constexpr const char* kGeneratedBy =
    "by exactune emit-header from heuristics.yaml and reports/tables/<family>/verified_defaults.yaml; do not edit";

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

FamilyView family_view(const std::string& family_name) {
  const KernelFamily& family = FamilyRegistry::find(family_name);
  FamilyView view{family, family.size_parameter(), {}};
  // select()'s other arguments and its locals, and Entry's other members
  constexpr std::array<std::string_view, 17> kTaken = {"device_name", "cc_major", "cc_minor", "sm_count", "rows",
                                                       "alignment",   "found",    "d",        "e",        "c",
                                                       "tuned",       "max_rows", "config",   "v",        "answer",
                                                       "fits",        "verified"};
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

// What makes a configuration narrow, for one size fallback, in words ("or")
// or in C++ ("||").
std::string fallback_condition(const SizeFallback& f, const std::string& size, std::string_view either = "or") {
  if (f.alignment == 0) return fmt::format("{} % {} != 0", size, f.multiple);
  return fmt::format("{} % {} != 0 {} alignment % {} != 0", size, f.multiple, either, f.alignment);
}

// The clause of the rules for one size fallback.
std::string fallback_clause(const SizeFallback& f, const std::string& size) {
  return fmt::format("where its {0} is {1} and {2} ({3}), the same configuration with {0} {4}", f.axis, f.from,
                     fallback_condition(f, size), f.why, f.to);
}

// How select() finds the GPU and falls back, in words: written into the
// header's comments and the JSON, so that both sets of consumers read the same rules.
std::vector<std::string> fallback_rules(const FamilyTables& tables, const FamilyView& view) {
  std::vector<std::string> clauses;
  for (const SizeFallback& f : view.family.size_fallbacks()) clauses.push_back(fallback_clause(f, view.size));
  std::string narrowing = "Each of rules 2 to 4 answers with its configuration narrowed for the problem";
  if (clauses.size() == 1) narrowing += ": " + clauses.front();
  if (clauses.size() > 1) narrowing += fmt::format(", by the first that applies of: {}", fmt::join(clauses, "; "));
  narrowing += fmt::format(
      "; and only where that configuration was verified bit-exact at the {0} (the verified list: a tuned choice at "
      "its own {0}, exact in its sweep; a default or narrowed form at the {0}s of exactune verify-defaults' "
      "record). Where it was not, the next rule answers.",
      view.size);
  const std::string rule3 =
      "3. On a device found (at a size without a table, by its compute capability alone, or where rule 2 did not "
      "answer): that device's default";
  return {
      "1. The device: the one whose name is the GPU's name (as the CUDA driver reports it) exactly; else the first, "
      "in the order listed, with the GPU's compute capability and SM count; else the first with its compute "
      "capability; else none.",
      fmt::format("2. On a device found by its name or by its compute capability and SM count, at a size of its "
                  "table ({}): the bucket that holds the row count. A size's buckets ascend by max_rows; the last "
                  "has none and holds every larger count.",
                  view.size),
      rule3 + ".",
      fmt::format("4. No device, or rules 2 and 3 did not answer: the global default, {}, {}.",
                  tables.global_default.variant, view.family.global_default_reason()),
      narrowing,
      "5. No rule answers, or alignment is below 8: no configuration (the header's kEagerPath, whose variant is "
      "nullptr; null in JSON): run the framework's chain. alignment is the largest power of two (at most 16) that "
      "divides every input and output address and row stride in bytes; below 8, the framework's own kernel is not "
      "the one these variants reproduce.",
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
  // Both choices a select() can return carry their narrowed forms.
  std::string fallbacks;
  for (const SizeFallback& f : view.family.size_fallbacks()) {
    fallbacks += fmt::format("  LaunchConfig {};  // the same with {} {}, where {}\n", fallback_member(f), f.axis, f.to,
                             fallback_condition(f, view.size));
  }
  return fmt::format(R"(
// One bucket of one GPU's table: at `{0}`, rows up to max_rows (-1: no bound).
struct Entry {{
  const char* device_name;  // as the CUDA driver names the GPU
  int cc_major;
  int cc_minor;
  int sm_count;
  int {0};
  long long max_rows;
  LaunchConfig config;
{1}}};

// A GPU's default: for its sizes without a table, and for other GPUs of its
// architecture.
struct ArchDefault {{
  const char* device_name;
  int cc_major;
  int cc_minor;
  int sm_count;  // of the GPU it was measured on
  LaunchConfig config;
{1}}};

// A variant proven bit-exact at `{0}` = first, first + step, ..., last.
struct VerifiedSizes {{
  const char* variant;
  int first;
  int last;
  int step;
}};

)",
                     view.size, fallbacks);
}

// Rule 1, the device whose measurements answer, as constexpr C++17 that
// includes nothing (std::strcmp is not constexpr).
constexpr const char* kFindDevice = R"(
// Whether two device names are the same text; a null name equals none.
constexpr bool same_name(const char* a, const char* b) {
  if (a == nullptr || b == nullptr) return false;
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

// The device select() answers from (none: nullptr), and whether its table
// applies: found by name or by compute capability and SM count, not by
// compute capability alone.
struct FoundDevice {
  const ArchDefault* device;
  bool table_applies;
};

constexpr FoundDevice find_device(const char* device_name, int cc_major, int cc_minor, int sm_count) {
  for (const ArchDefault& d : kArchDefaults) {
    if (same_name(d.device_name, device_name)) return {&d, true};
  }
  for (const ArchDefault& d : kArchDefaults) {
    if (d.cc_major == cc_major && d.cc_minor == cc_minor && d.sm_count == sm_count) return {&d, true};
  }
  for (const ArchDefault& d : kArchDefaults) {
    if (d.cc_major == cc_major && d.cc_minor == cc_minor) return {&d, false};
  }
  return {nullptr, false};
}
)";

std::string select_function(const std::vector<AxisForm>& forms, const FamilyView& view) {
  std::string out = fmt::format(R"(
// Whether `c` was proven bit-exact at this {0}.
constexpr bool verified(const LaunchConfig& c, int {0}) {{
  for (const VerifiedSizes& v : kVerified) {{
    if (same_name(v.variant, c.variant) && {0} >= v.first && {0} <= v.last && ({0} - v.first) % v.step == 0) {{
      return true;
    }}
  }}
  return false;
}}

// Whether the size and the data let `c` run: none of the narrowing conditions holds for it.
constexpr bool fits(const LaunchConfig& c, int {0}, int alignment) {{
)",
                                view.size);
  for (const SizeFallback& f : view.family.size_fallbacks()) {
    fmt::format_to(std::back_inserter(out), "  if (c.{} == {} && ({})) return false;\n", f.axis,
                   cpp_value(form_of(forms, f), f.from), fallback_condition(f, view.size, "||"));
  }
  out += fmt::format(R"(  return true;
}}

// A choice (a bucket or a device default) narrowed for the problem, where that
// configuration was verified at the {0}; else its narrowed forms, where they fit and were verified; else
// kEagerPath: see the rules above.
template <class Choice>
constexpr LaunchConfig answer(const Choice& c, int {0}, int alignment) {{
  if (fits(c.config, {0}, alignment) && verified(c.config, {0})) return c.config;
)",
                     view.size);
  for (const SizeFallback& f : view.family.size_fallbacks()) {
    fmt::format_to(std::back_inserter(out),
                   "  if (fits(c.{0}, {1}, alignment) && verified(c.{0}, {1})) return c.{0};\n", fallback_member(f),
                   view.size);
  }
  return out + fmt::format(R"(  return kEagerPath;
}}

// The launch configuration, or kEagerPath (runs_eager): run the framework's chain.
constexpr LaunchConfig select(const char* device_name, int cc_major, int cc_minor, int sm_count, int {0},
                              long long rows, int alignment) {{
  if (alignment % 8 != 0) return kEagerPath;  // 5.
  const FoundDevice found = find_device(device_name, cc_major, cc_minor, sm_count);  // 1.
  if (found.device != nullptr) {{
    const ArchDefault& d = *found.device;
    for (const Entry& e : kTable) {{  // 2.
      const bool tuned = found.table_applies && same_name(e.device_name, d.device_name) && e.{0} == {0};
      if (tuned && (e.max_rows < 0 || rows <= e.max_rows)) {{
        const LaunchConfig c = answer(e, {0}, alignment);
        if (!runs_eager(c)) return c;
        break;
      }}
    }}
    const LaunchConfig c = answer(d, {0}, alignment);  // 3.
    if (!runs_eager(c)) return c;
  }}
  if (fits(kGlobalDefault, {0}, alignment) && verified(kGlobalDefault, {0})) return kGlobalDefault;  // 4.
  return kEagerPath;  // 5.
}}

}}  // namespace {1}
)",
                           view.size, cpp_namespace(view));
}

// `text` as a C++ string literal holding exactly its bytes: quotes, backslashes
// and question marks (no trigraph) escaped, any other byte outside printable
// ASCII as an octal escape of three digits, which no following digit extends.
std::string cpp_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || c == '?') {
      out += {'\\', c};
    } else if (byte < 0x20 || byte >= 0x7f) {
      out += fmt::format("\\{:03o}", byte);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string describe_gpu(const DeviceHeuristics& d) {
  return fmt::format("{} ({}, {} SMs)", comment_safe(d.name), d.arch, d.sm_count);
}

// The comment above a family's namespace: what it selects, how to call it and the rules it answers by.
std::string family_comment(const FamilyTables& tables, const FamilyView& view) {
  std::vector<std::string> gpus;
  for (const DeviceHeuristics& d : tables.devices) gpus.push_back(describe_gpu(d));
  std::string out = comment_lines(
      fmt::format("The launch configuration of the fused kernel {}: {}. Chosen by exactune among the variants "
                  "proven bit-exact, from timings on {}. Self-contained C++17, for C++ and the host side of CUDA "
                  "code; each family has a namespace of its own, so that several can be included together.",
                  tables.family, comment_safe(view.family.description()), fmt::join(gpus, "; ")),
      "");
  out += "//\n";
  out += comment_lines(
      fmt::format("Use: {0}::select(device_name, cc_major, cc_minor, sm_count, {1}, rows, alignment), where "
                  "device_name is the GPU's name as the CUDA driver reports it (nullptr or \"\" when unknown), {1} "
                  "the size the variants are specialised for, rows the number of rows of {1} elements one call "
                  "processes and alignment that of the call's data (below). It finds the device by rule 1 and "
                  "answers by the first of rules 2 to 4 that applies:",
                  cpp_namespace(view), view.size),
      "");
  for (const std::string& rule : fallback_rules(tables, view)) out += comment_lines(rule, "");
  return out;
}

// The namespace exactune_heuristics::<family>: its types, every device's table and defaults, and select().
std::string family_namespace(const FamilyTables& tables, const FamilyView& view) {
  const std::vector<AxisForm> forms = axis_forms(view.family);
  std::string out = cpp_types(forms, view) + table_types(view);
  out += "// Every device's buckets, device by device.\ninline constexpr Entry kTable[] = {\n";
  for (const DeviceHeuristics& d : tables.devices) {
    const ComputeCapability cc = compute_capability(d.arch);
    out += comment_lines(describe_gpu(d), "    ");
    for (std::size_t i = 0; i < d.choices.size(); ++i) {
      const Choice& c = d.choices[i];
      const bool continues = i > 0 && d.choices[i - 1].size == c.size;
      out += comment_lines(describe_choice(c, continues ? d.choices[i - 1].max_rows : std::nullopt, view), "    ");
      fmt::format_to(std::back_inserter(out), "    {{{}, {}, {}, {}, {}, {}, {}", cpp_string(d.name), cc.major,
                     cc.minor, d.sm_count, c.size, c.max_rows ? *c.max_rows : -1, cpp_config(c.chosen, forms));
      for (const SizeFallback& f : view.family.size_fallbacks()) {
        out += ",\n     " + cpp_config(with_fallback(c.chosen, f, view.family), forms);
      }
      out += "},\n";
    }
  }
  out += "};\n\n// The configuration chosen most often on each device, in the order rule 1 tries them.\n";
  out += "inline constexpr ArchDefault kArchDefaults[] = {\n";
  for (const DeviceHeuristics& d : tables.devices) {
    const ComputeCapability cc = compute_capability(d.arch);
    out += comment_lines(describe_gpu(d), "    ");
    fmt::format_to(std::back_inserter(out), "    {{{}, {}, {}, {},\n     {}", cpp_string(d.name), cc.major, cc.minor,
                   d.sm_count, cpp_config(d.default_configuration, forms));
    for (const SizeFallback& f : view.family.size_fallbacks()) {
      form_of(forms, f);  // checks the fallback against the axes
      out += ",\n     " + cpp_config(with_fallback(d.default_configuration, f, view.family), forms);
    }
    out += "},\n";
  }
  out += "};\n\n";
  out += comment_lines(fmt::format("Rule 4, the global default: {}.", comment_safe(view.family.global_default_reason())), "");
  fmt::format_to(std::back_inserter(out), "inline constexpr LaunchConfig kGlobalDefault = {};\n",
                 cpp_config(tables.global_default, forms));
  out += comment_lines(fmt::format("Every (variant, {}) proven bit-exact: the only configurations select() returns, "
                                   "each at these sizes alone.",
                                   view.size),
                       "");
  out += "inline constexpr VerifiedSizes kVerified[] = {\n";
  std::string evidence;
  const std::vector<VerifiedSizes> verified = verified_sizes(tables);
  for (const VerifiedSizes& v : verified) {
    if (v.evidence != evidence) out += comment_lines(comment_safe(v.evidence), "    ");
    evidence = v.evidence;
    for (const SizeRange& r : v.sizes) {
      fmt::format_to(std::back_inserter(out), "    {{\"{}\", {}, {}, {}}},\n", v.variant, r.first, r.last, r.step);
    }
  }
  if (verified.empty()) out += "    {nullptr, 0, 0, 1},  // none: no array may be empty\n";
  out += "};\n\n";
  out += "// What select() answers where no verified configuration applies: no configuration, run the framework's\n"
         "// chain.\ninline constexpr LaunchConfig kEagerPath{};\n"
         "constexpr bool runs_eager(const LaunchConfig& c) { return c.variant == nullptr; }\n";
  return out + kFindDevice + select_function(forms, view);
}

}  // namespace

std::string emit_header(const FamilyTables& tables) {
  const FamilyView view = family_view(tables.family);
  return fmt::format("// Generated {}.\n//\n{}#pragma once\n\n{}", kGeneratedBy, family_comment(tables, view),
                     family_namespace(tables, view));
}

std::string emit_tables_header(const std::vector<FamilyTables>& families) {
  std::string out = fmt::format("// Generated {}.\n//\n", kTablesGeneratedBy);
  out += comment_lines(
      "Every kernel family's launch configurations for every GPU swept, a namespace per family "
      "(exactune_heuristics::<family>), each with the select() of the family's own exactune_heuristics.hpp.",
      "");
  out += "#pragma once\n";
  for (const FamilyTables& tables : families) {
    const FamilyView view = family_view(tables.family);
    out += "\n" + family_comment(tables, view) + "\n" + family_namespace(tables, view);
  }
  return out;
}

// -------------------------------------------------------------------- the JSON
namespace {

using Json = GeneratedJson;

Json json_value(const AxisForm& f, const std::string& value) { return f.integer ? Json(std::stoi(value)) : Json(value); }

Json json_config(const Configuration& c, const std::vector<AxisForm>& forms) {
  Json config = {{"variant", c.variant}};
  for (const AxisForm& f : forms) config[f.axis.name] = json_value(f, value_of(c, f.axis.name));
  return config;
}

// The narrowed forms of a configuration, each with when it applies.
Json json_fallbacks(const Configuration& configuration, const std::vector<AxisForm>& forms,
                    const FamilyView& view) {
  Json fallbacks = Json::array();
  for (const SizeFallback& f : view.family.size_fallbacks()) {
    const AxisForm& form = form_of(forms, f);
    fallbacks.push_back({{"axis", f.axis},
                         {"from", json_value(form, f.from)},
                         {"to", json_value(form, f.to)},
                         {"multiple", f.multiple},
                         {"alignment", f.alignment},
                         {"config", json_config(with_fallback(configuration, f, view.family), forms)}});
  }
  return fallbacks;
}

Json json_choice(const Choice& c, const std::vector<AxisForm>& forms, const FamilyView& view) {
  return Json{{view.size, c.size},
              {"max_rows", c.max_rows ? Json(*c.max_rows) : Json(nullptr)},
              {"config", json_config(c.chosen, forms)},
              {"median_us", c.median_us},
              {"runner_up", c.margin ? Json(c.runner_up) : Json(nullptr)},
              {"margin", c.margin ? Json(*c.margin) : Json(nullptr)},
              {"shape", c.shape},
              {"shared", c.shared},
              {"fallbacks", json_fallbacks(c.chosen, forms, view)}};
}

Json device_json(const DeviceHeuristics& d, const std::vector<AxisForm>& forms, const FamilyView& view) {
  const ComputeCapability cc = compute_capability(d.arch);
  Json table = Json::array();
  for (const Choice& c : d.choices) table.push_back(json_choice(c, forms, view));
  return {{"name", d.name},
          {"slug", d.slug},
          {"arch", d.arch},
          {"cc_major", cc.major},
          {"cc_minor", cc.minor},
          {"sm_count", d.sm_count},
          {"default", json_config(d.default_configuration, forms)},
          {"default_fallbacks", json_fallbacks(d.default_configuration, forms, view)},
          {"table", table}};
}

// Every (variant, size range) proven bit-exact, with its evidence.
Json json_verified(const FamilyTables& tables) {
  Json verified = Json::array();
  for (const VerifiedSizes& v : verified_sizes(tables)) {
    for (const SizeRange& r : v.sizes) {
      verified.push_back(
          {{"variant", v.variant}, {"first", r.first}, {"last", r.last}, {"step", r.step}, {"evidence", v.evidence}});
    }
  }
  return verified;
}

// The file format of exactune_tables.json, around its families' objects.
constexpr int kTablesFormatVersion = 1;

}  // namespace

Json family_json(const FamilyTables& tables, std::string_view generated_by) {
  const FamilyView view = family_view(tables.family);
  const std::vector<AxisForm> forms = axis_forms(view.family);
  Json devices = Json::array();
  for (const DeviceHeuristics& d : tables.devices) devices.push_back(device_json(d, forms, view));
  return {{"generated", generated_by},
          {"format_version", tables.format_version},
          {"family", tables.family},
          {"select",
           {{"inputs", fmt::format("device_name, cc_major, cc_minor, sm_count, {}, rows, alignment", view.size)},
            {"size", view.size},
            {"size_description", view.size_description},
            {"rows", fmt::format("the number of rows of {} elements one call processes", view.size)},
            {"fallback", fallback_rules(tables, view)}}},
          {"devices", devices},
          {"global_default", json_config(tables.global_default, forms)},
          {"verified", json_verified(tables)}};
}

std::string emit_json(const FamilyTables& tables) { return family_json(tables, kGeneratedBy).dump(2) + "\n"; }

std::string emit_tables_json(const std::vector<FamilyTables>& families) {
  Json objects = Json::array();
  for (const FamilyTables& tables : families) objects.push_back(family_json(tables, kTablesGeneratedBy));
  const Json root = {
      {"generated", kTablesGeneratedBy}, {"format_version", kTablesFormatVersion}, {"families", objects}};
  return root.dump(2) + "\n";
}

}  // namespace exactune
