// The view both emitters read (heuristics_view.hpp): the family's names checked
// against the C++ they will name, its axes' forms, and the rules in words.
#include "report/heuristics_view.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>

namespace exactune {
namespace {

bool is_identifier(std::string_view text) {
  return !text.empty() && !std::isdigit(static_cast<unsigned char>(text.front())) &&
         std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool is_integer(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// The clause of the rules for one size fallback.
std::string fallback_clause(const SizeFallback& f, const std::string& size) {
  return fmt::format("where its {0} is {1} and {2} ({3}), the same configuration with {0} {4}", f.axis, f.from,
                     fallback_condition(f, size), f.why, f.to);
}

}  // namespace

FamilyView family_view(const std::string& family_name) {
  const KernelFamily& family = FamilyRegistry::find(family_name);
  FamilyView view{family, family.size_parameter(), {}};
  // select()'s other arguments and its locals, and Entry's other members
  constexpr std::array<std::string_view, 19> kTaken = {
      "device_name", "cc_major", "cc_minor", "sm_count", "rows",   "alignment", "found",    "d",      "e",      "c",
      "tuned",       "max_rows", "config",   "v",        "answer", "fits",      "verified", "device", "applies"};
  if (!is_identifier(family.name()) || !is_identifier(view.size) ||
      std::find(kTaken.begin(), kTaken.end(), view.size) != kTaken.end()) {
    throw error(
        fmt::format("family '{}' with size parameter '{}': both must be C++ identifiers, and the size "
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

std::string fallback_condition(const SizeFallback& f, const std::string& size, std::string_view either) {
  if (f.alignment == 0) return fmt::format("{} % {} != 0", size, f.multiple);
  return fmt::format("{} % {} != 0 {} alignment % {} != 0", size, f.multiple, either, f.alignment);
}

std::vector<std::string> fallback_rules(const FamilyTables& tables, const FamilyView& view) {
  std::vector<std::string> clauses;
  for (const SizeFallback& f : view.family.size_fallbacks()) clauses.push_back(fallback_clause(f, view.size));
  std::string narrowing = "Each of rules 2 to 4 answers with its configuration narrowed for the problem";
  if (clauses.size() == 1) narrowing += ": " + clauses.front();
  if (clauses.size() > 1) narrowing += fmt::format(", by the first that applies of: {}", fmt::join(clauses, "; "));
  narrowing += fmt::format(
      "; and only where that configuration was verified bit-exact at the {0} for the device found (the verified "
      "list: a tuned choice at its own {0}, exact in the sweep of its GPU; a default or narrowed form at the {0}s "
      "of the record exactune verify-defaults made on that GPU, or, for a GPU without one of its own and where no "
      "device is found, of the host's record). Where it was not, the next rule answers.",
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

Configuration with_fallback(const Configuration& c, const SizeFallback& f, const KernelFamily& family) {
  Configuration narrow = c;
  for (Param& p : narrow.params) {
    if (p.axis == f.axis) p.value = f.to;
  }
  narrow.variant = family.variant_name(narrow.params);
  return narrow;
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
  const auto it =
      std::find_if(forms.begin(), forms.end(), [&](const AxisForm& form) { return form.axis.name == f.axis; });
  const auto valid = [&](const std::string& value) {
    return it != forms.end() &&
           std::find(it->axis.values.begin(), it->axis.values.end(), value) != it->axis.values.end();
  };
  if (!valid(f.from) || !valid(f.to) || f.multiple < 1) {
    throw error(
        fmt::format("size fallback {} {} -> {} (multiple {}): not values of one of the family's axes, or "
                    "no multiple",
                    f.axis, f.from, f.to, f.multiple));
  }
  return *it;
}

const std::string& value_of(const Configuration& c, const std::string& axis) {
  if (const std::string* value = find_param(c.params, axis)) return *value;
  throw error(fmt::format("variant {} has no value for axis {}", c.variant, axis));
}

}  // namespace exactune
