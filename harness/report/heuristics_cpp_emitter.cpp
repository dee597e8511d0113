// The C++ form of a family's tables (heuristics_emitter.hpp's emit_header and
// emit_tables_header): a self-contained C++17 header, a namespace per family
// with its types, its tables in comments and data, and select(). What is the
// same for every family (the tables' types, select() and its helpers) is C++
// of its own in generated/, pasted here (fixed_cpp.hpp); what this file writes
// is the family's: its axes, its tables and its narrowed forms.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <string_view>

#include "report/fixed_cpp.hpp"
#include "report/heuristics_emitter.hpp"
#include "report/heuristics_view.hpp"
#include "util/gpu_arch.hpp"

namespace exactune {
namespace {

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
std::string cpp_namespace(const FamilyView& view) { return fmt::format("exactune_heuristics::{}", view.family.name()); }

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
  std::string text = fmt::format("{} {}, {}: {} us on {}", view.size, c.size, row_range(c, previous_bound), c.median_us,
                                 comment_safe(c.shape));
  if (c.margin) text += fmt::format("; runner-up {} {:+.2f}%", c.runner_up, *c.margin * 100);
  if (c.shared) text += "; shared by the size's buckets";
  return text;
}

// The member of ArchDefault and Entry that holds a fallback's configuration.
std::string fallback_member(const SizeFallback& f) { return fmt::format("config_{}_{}", f.axis, f.to); }

// Entry, ArchDefault and VerifiedSizes: both choices a select() can return carry their narrowed forms.
std::string table_types(const FamilyView& view) {
  std::string members;
  for (const SizeFallback& f : view.family.size_fallbacks()) {
    members += fmt::format("  LaunchConfig {};  // the same with {} {}, where {}\n", fallback_member(f), f.axis, f.to,
                           fallback_condition(f, view.size));
  }
  return "\n" + paste_fixed_cpp(kTableTypesSource, view.size, {{"fallback members", members}}) + "\n";
}

// kEagerPath, rule 1's find_device() and select() with what it asks: whether a
// configuration was verified, fits the problem, and the answer of a choice.
std::string select_function(const std::vector<AxisForm>& forms, const FamilyView& view) {
  std::string conditions, answers;
  for (const SizeFallback& f : view.family.size_fallbacks()) {
    fmt::format_to(std::back_inserter(conditions), "  if (c.{} == {} && ({})) return false;\n", f.axis,
                   cpp_value(form_of(forms, f), f.from), fallback_condition(f, view.size, "||"));
    fmt::format_to(std::back_inserter(answers),
                   "  if (fits(c.{0}, {1}, alignment) && verified(c.{0}, {1}, device)) return c.{0};\n",
                   fallback_member(f), view.size);
  }
  return paste_fixed_cpp(kSelectSource, view.size,
                         {{"fallback conditions", conditions}, {"fallback answers", answers}}) +
         fmt::format("\n}}  // namespace {}\n", cpp_namespace(view));
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
    fmt::format_to(std::back_inserter(out), "    {{{}, {}, {}, {}, {},\n     {}", cpp_string(d.name), cc.major,
                   cc.minor, d.sm_count, own_record(tables, d.name) != nullptr,
                   cpp_config(d.default_configuration, forms));
    for (const SizeFallback& f : view.family.size_fallbacks()) {
      form_of(forms, f);  // checks the fallback against the axes
      out += ",\n     " + cpp_config(with_fallback(d.default_configuration, f, view.family), forms);
    }
    out += "},\n";
  }
  out += "};\n\n";
  out += comment_lines(
      fmt::format("Rule 4, the global default: {}.", comment_safe(view.family.global_default_reason())), "");
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
      fmt::format_to(std::back_inserter(out), "    {{\"{}\", {}, {}, {}, {}}},\n", v.variant, r.first, r.last, r.step,
                     v.device.empty() ? std::string("nullptr") : cpp_string(v.device));
    }
  }
  if (verified.empty()) out += "    {nullptr, 0, 0, 1, nullptr},  // none: no array may be empty\n";
  out += "};\n\n";
  return out + select_function(forms, view);
}

}  // namespace

std::string emit_header(const FamilyTables& tables) {
  const FamilyView view = family_view(tables.family);
  return fmt::format("// Generated {}.\n//\n{}#pragma once\n\n{}", kHeuristicsGeneratedBy, family_comment(tables, view),
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

}  // namespace exactune
