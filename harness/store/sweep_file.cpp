#include "store/sweep_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>
#include "util/strict_yaml.hpp"
#include "util/yaml_node_text.hpp"
#include "util/text_file.hpp"

namespace exactune {

const VariantResult* ShapeResult::find(const std::string& name) const {
  const auto it =
      std::find_if(variants.begin(), variants.end(), [&](const VariantResult& v) { return v.variant == name; });
  return it == variants.end() ? nullptr : &*it;
}

const ShapeResult* SweepResults::find(const std::string& name) const {
  const auto it =
      std::find_if(shapes.begin(), shapes.end(), [&](const ShapeResult& s) { return s.shape.name == name; });
  return it == shapes.end() ? nullptr : &*it;
}

namespace {

// A timing is written two ways: a shape's figures as a flow map under one key
// (`copy_us: {median: .., min: .., max: .., samples: ..}`), a variant's as flat
// keys (`median_us`, ..., `cold_median_us`, ...) so a variant reads as one
// block. Both spell their keys with timing_key(), the writer and the reader alike.
constexpr std::array<std::string_view, 4> kTimingFields = {"median", "min", "max", "samples"};

std::string timing_key(std::string_view prefix, std::string_view field, std::string_view unit) {
  return fmt::format("{}{}{}", prefix, field, field == "samples" ? "" : unit);
}

// The keys of a timing's flow map, and the prefixes of a variant's flat keys.
constexpr std::string_view kFlowUnit = "";
constexpr std::string_view kFlatUnit = "_us";
constexpr std::string_view kHotPrefix = "";
constexpr std::string_view kColdPrefix = "cold_";
// Written for readers (median_us / copy median) and recomputed by whoever needs it.
constexpr std::string_view kDerivedCopyRatio = "copy_ratio";

// ---------------------------------------------------------------- writing

// The shortest decimal that reads back to the same double. YAML 1.1 readers
// (PyYAML) take digits without a '.' for an integer, or with an exponent for a
// string, so the mantissa always gets one: 1e-06 -> 1.0e-06, 3 -> 3.0.
std::string yaml_number(double value) {
  if (std::isnan(value)) return ".nan";
  if (std::isinf(value)) return value > 0 ? ".inf" : "-.inf";
  std::string text = fmt::format("{}", value);
  if (text.find('.') == std::string::npos) {
    const std::size_t exponent = text.find('e');
    text.insert(exponent == std::string::npos ? text.size() : exponent, ".0");
  }
  return text;
}

// Whether `text` written plain reads back as the same string in any YAML reader,
// in block and flow context alike: it starts with a letter, holds no
// indicator characters, and is no word a reader would take for a bool or null.
bool plain_is_safe(std::string_view text) {
  if (text.empty() || !std::isalpha(static_cast<unsigned char>(text.front())) || text.back() == ' ') return false;
  const bool safe_characters = std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr(" ._-/", c) != nullptr;
  });
  if (!safe_characters) return false;
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  constexpr std::array<std::string_view, 11> kReserved = {"true", "false", "yes",  "no",  "on", "off",
                                                          "y",    "n",     "null", "nan", "inf"};
  return std::find(kReserved.begin(), kReserved.end(), lower) == kReserved.end();
}

std::string yaml_string(std::string_view text) {
  if (plain_is_safe(text)) return std::string(text);
  std::string quoted = "\"";
  for (char c : text) {
    switch (c) {
      case '"': quoted += "\\\""; break;
      case '\\': quoted += "\\\\"; break;
      case '\n': quoted += "\\n"; break;
      case '\t': quoted += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          quoted += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        } else {
          quoted += c;
        }
    }
  }
  return quoted + "\"";
}

using KeyValues = std::vector<std::pair<std::string, std::string>>;

std::string flow_map(const KeyValues& fields) {
  std::vector<std::string> parts;
  for (const auto& [key, value] : fields) parts.push_back(key + ": " + value);
  return fmt::format("{{{}}}", fmt::join(parts, ", "));
}

KeyValues timing_fields(const Timing& t, std::string_view prefix, std::string_view unit) {
  const std::array<std::string, 4> values = {yaml_number(t.median_us), yaml_number(t.min_us), yaml_number(t.max_us),
                                             fmt::format("{}", t.samples)};
  KeyValues fields;
  for (std::size_t i = 0; i < kTimingFields.size(); ++i) {
    fields.emplace_back(timing_key(prefix, kTimingFields[i], unit), values[i]);
  }
  return fields;
}

// Builds the text a block at a time; `item` starts a list entry ("- key: value").
class YamlText {
 public:
  void field(int indent, std::string_view key, std::string_view value) {
    text_ += fmt::format("{:{}}{}: {}\n", "", indent, key, value);
  }
  void fields(int indent, const KeyValues& entries) {
    for (const auto& [key, value] : entries) field(indent, key, value);
  }
  void item(int indent, std::string_view key, std::string_view value) {
    text_ += fmt::format("{:{}}- {}: {}\n", "", indent, key, value);
  }
  void line(std::string_view text) { text_ += fmt::format("{}\n", text); }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

// A comment holds one line: any control character in the device name becomes a space.
std::string comment_safe(std::string text) {
  std::replace_if(
      text.begin(), text.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }, ' ');
  return text;
}

KeyValues device_fields(const DeviceRecord& d) {
  return {{"name", yaml_string(d.name)},
          {"slug", yaml_string(d.slug)},
          {"arch", yaml_string(d.arch)},
          {"sm_count", fmt::format("{}", d.sm_count)},
          {"l2_bytes", fmt::format("{}", d.l2_bytes)},
          {"memory_clock_khz", fmt::format("{}", d.memory_clock_khz)},
          {"memory_bus_bits", fmt::format("{}", d.memory_bus_bits)},
          {"driver_version", fmt::format("{}", d.driver_version)},
          {"nvrtc_version", yaml_string(d.nvrtc_version)}};
}

KeyValues timing_method_fields(const TimingMethod& m) {
  return {{"hot", yaml_string(m.hot)},
          {"cold", yaml_string(m.cold)},
          {"repetitions", fmt::format("{}", m.repetitions)},
          {"max_spread", yaml_number(m.max_spread)}};
}

// Everything before the shapes.
KeyValues header_fields(const SweepResults& r) {
  return {{"exactune_sweep", fmt::format("{}", kSweepFormatVersion)},
          {"family", yaml_string(r.family)},
          {"reference_recipe", yaml_string(r.reference_recipe)},
          {"created", yaml_string(r.created)},
          {"wall_s", yaml_number(r.wall_s)},
          {"gpu", flow_map(device_fields(r.device))},
          {"timing", flow_map(timing_method_fields(r.timing))}};
}

// The figures a shape carries about itself, each written only when measured.
const std::array<std::pair<std::string_view, std::optional<Timing> ShapeResult::*>, 4> kShapeTimings = {{
    {"copy_us", &ShapeResult::copy_hot},
    {"copy_cold_us", &ShapeResult::copy_cold},
    {"eager_us", &ShapeResult::eager_hot},
    {"eager_cold_us", &ShapeResult::eager_cold},
}};

void write_variant(YamlText& out, const VariantResult& v, const std::optional<Timing>& copy_hot) {
  constexpr int kIndent = 8;
  out.item(kIndent - 2, "variant", yaml_string(v.variant));
  KeyValues params;
  for (const Param& p : v.params) params.emplace_back(yaml_string(p.axis), yaml_string(p.value));
  out.field(kIndent, "params", flow_map(params));
  out.field(kIndent, "registers", fmt::format("{}", v.registers));
  out.field(kIndent, "spill_bytes", fmt::format("{}", v.spill_bytes));
  out.field(kIndent, "exact", v.exact ? "true" : "false");
  out.field(kIndent, "cases", fmt::format("\"{}/{}\"", v.cases_passed, v.cases_total));
  if (!v.failure_kind.empty()) out.field(kIndent, "failure_kind", yaml_string(v.failure_kind));
  if (!v.failure.empty()) out.field(kIndent, "failure", yaml_string(v.failure));
  if (v.hot) out.fields(kIndent, timing_fields(*v.hot, kHotPrefix, kFlatUnit));
  if (v.cold) out.fields(kIndent, timing_fields(*v.cold, kColdPrefix, kFlatUnit));
  if (v.hot && copy_hot && copy_hot->median_us > 0) {
    out.field(kIndent, kDerivedCopyRatio, fmt::format("{:.3f}", v.hot->median_us / copy_hot->median_us));
  }
}

// A shape's fields after its name and before its timings: its model, its
// parameters in the family's order, as its shape file spells them, and the
// bytes a fused kernel moves.
KeyValues shape_fields(const ShapeResult& s) {
  KeyValues fields = {{"model", yaml_string(s.shape.model)}};
  for (const ShapeParameter& p : s.shape.parameters) fields.emplace_back(p.name, p.text());
  fields.emplace_back("bytes_moved", fmt::format("{}", s.bytes_moved));
  return fields;
}

void write_shape(YamlText& out, const ShapeResult& s) {
  constexpr int kIndent = 4;
  out.item(kIndent - 2, "name", yaml_string(s.shape.name));
  out.fields(kIndent, shape_fields(s));
  for (const auto& [key, member] : kShapeTimings) {
    if (const std::optional<Timing>& t = s.*member) out.field(kIndent, key, flow_map(timing_fields(*t, "", kFlowUnit)));
  }
  if (s.variants.empty()) {
    out.field(kIndent, "variants", "[]");
    return;
  }
  out.line("    variants:");
  for (const VariantResult& v : s.variants) write_variant(out, v, s.copy_hot);
}

// ---------------------------------------------------------------- reading

using strict_yaml::Fields;
using strict_yaml::Keys;
using strict_yaml::Source;
using strict_yaml::Value;

Keys keys_of(const KeyValues& fields) {
  Keys keys;
  for (const auto& [key, value] : fields) keys.push_back(key);
  return keys;
}

// The keys of one timing, as timing_fields() writes them.
Keys timing_keys(std::string_view prefix, std::string_view unit) { return keys_of(timing_fields({}, prefix, unit)); }

Timing read_timing(const Fields& fields, std::string_view prefix, std::string_view unit) {
  Timing t;
  t.median_us = fields[timing_key(prefix, "median", unit)].real();
  t.min_us = fields[timing_key(prefix, "min", unit)].real();
  t.max_us = fields[timing_key(prefix, "max", unit)].real();
  t.samples = fields[timing_key(prefix, "samples", unit)].integer<int>();
  return t;
}

// A variant's flat timing: absent when none of its keys is there, else all of them.
std::optional<Timing> read_flat_timing(const Fields& fields, std::string_view prefix) {
  const Keys keys = timing_keys(prefix, kFlatUnit);
  if (std::none_of(keys.begin(), keys.end(), [&](const std::string& key) { return fields.has(key); })) {
    return std::nullopt;
  }
  return read_timing(fields, prefix, kFlatUnit);
}

Timing read_flow_timing(const Value& value) {
  return read_timing(value.map(value.key(), timing_keys("", kFlowUnit)), "", kFlowUnit);
}

// "passed/total", e.g. "8/8".
void read_cases(const Value& value, VariantResult& v) {
  const std::string text = value.text();
  const std::size_t slash = text.find('/');
  const auto whole_number = [](std::string_view part, int& out) {
    const auto [stop, status] = std::from_chars(part.data(), part.data() + part.size(), out);
    return status == std::errc() && stop == part.data() + part.size() && out >= 0;
  };
  const std::string_view all(text);
  if (slash == std::string::npos || !whole_number(all.substr(0, slash), v.cases_passed) ||
      !whole_number(all.substr(slash + 1), v.cases_total) || v.cases_passed > v.cases_total) {
    value.source().fail(value.line(), "cases must be \"passed/total\" with passed <= total, got '{}'", text);
  }
}

Keys variant_keys() {
  Keys keys = {"variant", "params", "registers", "spill_bytes", "exact", "cases", "failure_kind", "failure"};
  for (std::string_view prefix : {kHotPrefix, kColdPrefix}) {
    for (std::string& key : timing_keys(prefix, kFlatUnit)) keys.push_back(std::move(key));
  }
  keys.emplace_back(kDerivedCopyRatio);  // allowed, and not read
  return keys;
}

VariantResult read_variant(const Value& item) {
  static const Keys kKeys = variant_keys();
  const Fields f = item.map("a variant", kKeys);
  VariantResult v;
  v.variant = f["variant"].text();
  for (const Value& param : f["params"].map("params", {}).all()) v.params.push_back({param.key(), param.text()});
  v.registers = f["registers"].integer<int>();
  v.spill_bytes = f["spill_bytes"].integer<int>();
  v.exact = f["exact"].boolean();
  read_cases(f["cases"], v);
  if (auto kind = f.optional("failure_kind")) v.failure_kind = kind->text();
  if (auto failure = f.optional("failure")) v.failure = failure->text();
  v.hot = read_flat_timing(f, kHotPrefix);
  v.cold = read_flat_timing(f, kColdPrefix);
  return v;
}

// Names are unique in their list: the gate and the reports find records by name.
void check_unique(std::set<std::string>& seen, const std::string& name, const Value& item, std::string_view what) {
  if (!seen.insert(name).second) item.source().fail(item.line(), "{} '{}' appears twice", what, name);
}

// The keys of a shape of `family`: shape_fields() with the family's parameters.
Keys shape_keys(const KernelFamily& family) {
  ShapeResult prototype;
  for (const ParameterSpec& spec : family.shape_parameters()) prototype.shape.parameters.push_back({spec.name});
  Keys keys = keys_of(shape_fields(prototype));
  keys.insert(keys.begin(), "name");
  for (const auto& [key, member] : kShapeTimings) keys.emplace_back(key);
  keys.emplace_back("variants");
  return keys;
}

// The shape's parameters as the family declares them (a missing one takes its
// default), each checked as a shape file's would be, then the size and rows
// the family derives from them.
void read_parameters(const Fields& f, const Value& item, const KernelFamily& family, Shape& shape) {
  for (const ParameterSpec& spec : family.shape_parameters()) {
    ShapeParameter p{spec.name, 0, spec.integer};
    const std::optional<Value> value = f.optional(spec.name);
    if (!value && spec.default_value) {
      p.value = *spec.default_value;
    } else {
      const Value given = f[spec.name];  // missing without a default: fails, naming the key
      p.value = spec.integer ? static_cast<double>(given.integer<std::int64_t>()) : given.real();
      const std::string problem = family.parameter_problem(spec.name, p.value);
      if (!problem.empty()) given.source().fail(given.line(), "{}", problem);
    }
    shape.parameters.push_back(std::move(p));
  }
  try {
    family.complete(shape);
  } catch (const input_error& e) {
    item.source().fail(item.line(), "shape '{}': {}", shape.name, e.what());
  }
}

ShapeResult read_shape(const Value& item, const KernelFamily& family, const Keys& keys) {
  const Fields f = item.map("a shape", keys);
  ShapeResult s;
  s.shape.name = f["name"].text();
  s.shape.model = f["model"].text();
  read_parameters(f, item, family, s.shape);
  s.bytes_moved = f["bytes_moved"].integer<std::int64_t>();
  for (const auto& [key, member] : kShapeTimings) {
    if (const std::optional<Value> timing = f.optional(key)) s.*member = read_flow_timing(*timing);
  }
  std::set<std::string> names;
  for (const Value& variant_item : f["variants"].list()) {
    s.variants.push_back(read_variant(variant_item));
    check_unique(names, s.variants.back().variant, variant_item, fmt::format("in shape '{}', variant", s.shape.name));
  }
  return s;
}

DeviceRecord read_device(const Value& value) {
  const Fields f = value.map("gpu", keys_of(device_fields({})));
  DeviceRecord d;
  d.name = f["name"].text();
  d.slug = f["slug"].text();
  d.arch = f["arch"].text();
  d.sm_count = f["sm_count"].integer<int>();
  d.l2_bytes = f["l2_bytes"].integer<std::int64_t>();
  d.memory_clock_khz = f["memory_clock_khz"].integer<int>();
  d.memory_bus_bits = f["memory_bus_bits"].integer<int>();
  d.driver_version = f["driver_version"].integer<int>();
  d.nvrtc_version = f["nvrtc_version"].text();
  return d;
}

TimingMethod read_timing_method(const Value& value) {
  const Fields f = value.map("timing", keys_of(timing_method_fields({})));
  TimingMethod m;
  m.hot = f["hot"].text();
  m.cold = f["cold"].text();
  m.repetitions = f["repetitions"].integer<int>();
  m.max_spread = f["max_spread"].real();
  return m;
}

}  // namespace

std::string to_sweep_yaml(const SweepResults& results) {
  YamlText out;
  out.line(
      fmt::format("# exactune sweep results: measured by exactune sweep on {}; input to heuristics.yaml and the gate.",
                  comment_safe(results.device.name)));
  out.fields(0, header_fields(results));
  if (results.shapes.empty()) {
    out.field(0, "shapes", "[]");
  } else {
    out.line("shapes:");
    for (const ShapeResult& s : results.shapes) write_shape(out, s);
  }
  return out.take();
}

SweepResults parse_sweep_yaml(std::string_view text, const std::string& source_name) {
  const Source source(source_name);
  const YAML::Node root = strict_yaml::load_document(
      text, source, fmt::format("a map that starts with 'exactune_sweep: {}'", kSweepFormatVersion));
  // The version first: another version may well have other keys.
  const Value version = Fields(source, root, line_of(root), "the top level", {})["exactune_sweep"];
  if (version.integer<int>() != kSweepFormatVersion) {
    source.fail(version.line(), "exactune_sweep: {} is a format this exactune does not read (it reads {})",
                version.integer<int>(), kSweepFormatVersion);
  }
  Keys top_keys = keys_of(header_fields({}));
  top_keys.emplace_back("shapes");
  const Fields top(source, root, line_of(root), "the top level", top_keys);
  SweepResults results;
  const Value family_name = top["family"];
  results.family = family_name.text();
  // The family names the shapes' parameters.
  const KernelFamily* family = nullptr;
  try {
    family = &FamilyRegistry::find(results.family);
  } catch (const input_error& e) {
    source.fail(family_name.line(), "family: {}", e.what());
  }
  const Keys keys = shape_keys(*family);
  results.reference_recipe = top["reference_recipe"].text();
  results.created = top["created"].text();
  results.wall_s = top["wall_s"].real();
  results.device = read_device(top["gpu"]);
  results.timing = read_timing_method(top["timing"]);
  std::set<std::string> names;
  for (const Value& item : top["shapes"].list()) {
    results.shapes.push_back(read_shape(item, *family, keys));
    check_unique(names, results.shapes.back().shape.name, item, "shape");
  }
  return results;
}

void write_sweep_file(const SweepResults& results, const std::filesystem::path& path) {
  write_text_file(path, to_sweep_yaml(results));
}

SweepResults read_sweep_file(const std::filesystem::path& path) {
  return parse_sweep_yaml(read_text_file(path, "sweep file"), path.string());
}

}  // namespace exactune
