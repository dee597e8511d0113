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
// (`copy_rotated_us: {median: .., min: .., max: .., samples: ..}`), a variant's
// as flat keys (`rotated_median_us`, ..., `cold_median_us`, ...) so a variant
// reads as one block. Both spell their keys with timing_key(), the writer and
// the reader alike.
constexpr std::array<std::string_view, 4> kTimingFields = {"median", "min", "max", "samples"};

std::string timing_key(std::string_view prefix, std::string_view field, std::string_view unit) {
  return fmt::format("{}{}{}", prefix, field, field == "samples" ? "" : unit);
}

// The keys of a timing's flow map, and the prefixes of a variant's flat keys.
constexpr std::string_view kFlowUnit = "";
constexpr std::string_view kFlatUnit = "_us";
// A variant's figure of a regime is spelled "<regime>_median_us", ...
std::string flat_prefix(TimingRegime r) { return fmt::format("{}_", regime_name(r)); }
// Format 1 had no rotated figure; its hot one (no prefix) was L2-resident.
constexpr std::string_view kVersion1HotPrefix = "";
constexpr std::string_view kVersion1ColdPrefix = "cold_";
// Written for readers (a figure over its copy's, per regime) and recomputed by whoever needs it.
constexpr std::string_view kDerivedCopyRatios = "copy_ratios";
constexpr std::string_view kVersion1DerivedCopyRatio = "copy_ratio";

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
  return {{"rotated", yaml_string(m.rotated)},
          {"l2_resident", yaml_string(m.l2_resident)},
          {"cold", yaml_string(m.cold)},
          {"repetitions", fmt::format("{}", m.repetitions)},
          {"max_spread", yaml_number(m.max_spread)},
          {"noise_passes", fmt::format("{}", m.noise_passes)}};
}


// Everything before the shapes.
KeyValues header_fields(const SweepResults& r) {
  return {{"exactune_sweep", fmt::format("{}", kSweepFormatVersion)},
          {"family", yaml_string(r.family)},
          {"reference_recipe", yaml_string(r.reference_recipe)},
          {"seed", fmt::format("{}", r.seed)},
          {"created", yaml_string(r.created)},
          {"wall_s", yaml_number(r.wall_s)},
          {"gpu", flow_map(device_fields(r.device))},
          {"timing", flow_map(timing_method_fields(r.timing))}};
}

// The figures a shape carries about itself, each written only when measured.
using ShapeTiming = std::optional<Timing> ShapeResult::*;
const std::array<std::pair<std::string_view, ShapeTiming>, 6> kShapeTimings = {{
    {"copy_rotated_us", &ShapeResult::copy_rotated},
    {"copy_l2_resident_us", &ShapeResult::copy_l2_resident},
    {"copy_cold_us", &ShapeResult::copy_cold},
    {"reference_chain_rotated_us", &ShapeResult::reference_chain_rotated},
    {"reference_chain_l2_resident_us", &ShapeResult::reference_chain_l2_resident},
    {"reference_chain_cold_us", &ShapeResult::reference_chain_cold},
}};
// Format 1's: no rotated figures, "hot" L2-resident, and the reference chain called "eager".
const std::array<std::pair<std::string_view, ShapeTiming>, 4> kVersion1ShapeTimings = {{
    {"copy_us", &ShapeResult::copy_l2_resident},
    {"copy_cold_us", &ShapeResult::copy_cold},
    {"eager_us", &ShapeResult::reference_chain_l2_resident},
    {"eager_cold_us", &ShapeResult::reference_chain_cold},
}};

KeyValues rotation_fields(const Rotation& r) {
  return {{"copies", fmt::format("{}", r.copies)}, {"working_set_bytes", fmt::format("{}", r.working_set_bytes)}};
}

KeyValues noise_fields(const RunToRunNoise& n) {
  return {{"noise", yaml_number(n.noise)},
          {"passes", fmt::format("{}", n.passes)},
          {"variants", fmt::format("{}", n.variants)}};
}

// `run_to_run_noise: {rotated: {noise: .., passes: .., variants: ..}, ...}`, in regime order.
std::string noise_map(const std::vector<RunToRunNoise>& noises) {
  KeyValues by_regime;
  for (TimingRegime r : kTimingRegimes) {
    for (const RunToRunNoise& n : noises) {
      if (n.regime == r) by_regime.emplace_back(std::string(regime_name(r)), flow_map(noise_fields(n)));
    }
  }
  return flow_map(by_regime);
}

void write_variant(YamlText& out, const VariantResult& v, const ShapeResult& shape) {
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
  KeyValues ratios;
  for (TimingRegime r : kTimingRegimes) {
    const std::optional<Timing>& t = v.timing(r);
    if (!t) continue;
    out.fields(kIndent, timing_fields(*t, flat_prefix(r), kFlatUnit));
    const std::optional<Timing>& copy = shape.copy(r);
    if (copy && copy->median_us > 0) {
      ratios.emplace_back(std::string(regime_name(r)), fmt::format("{:.3f}", t->median_us / copy->median_us));
    }
  }
  if (!ratios.empty()) out.field(kIndent, kDerivedCopyRatios, flow_map(ratios));
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
  if (s.rotation) out.field(kIndent, "rotation", flow_map(rotation_fields(*s.rotation)));
  for (const auto& [key, member] : kShapeTimings) {
    if (const std::optional<Timing>& t = s.*member) out.field(kIndent, key, flow_map(timing_fields(*t, "", kFlowUnit)));
  }
  if (!s.run_to_run_noise.empty()) out.field(kIndent, "run_to_run_noise", noise_map(s.run_to_run_noise));
  if (s.variants.empty()) {
    out.field(kIndent, "variants", "[]");
    return;
  }
  out.line("    variants:");
  for (const VariantResult& v : s.variants) write_variant(out, v, s);
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

// A variant's timing keys, per regime: its flat prefix in the file's format
// (format 1 has no rotated figure).
std::vector<std::pair<TimingRegime, std::string>> variant_timing_prefixes(int version) {
  if (version == 1) {
    return {{TimingRegime::l2_resident, std::string(kVersion1HotPrefix)},
            {TimingRegime::cold, std::string(kVersion1ColdPrefix)}};
  }
  std::vector<std::pair<TimingRegime, std::string>> prefixes;
  for (TimingRegime r : kTimingRegimes) prefixes.emplace_back(r, flat_prefix(r));
  return prefixes;
}

Keys variant_keys(int version) {
  Keys keys = {"variant", "params", "registers", "spill_bytes", "exact", "cases", "failure_kind", "failure"};
  for (const auto& [regime, prefix] : variant_timing_prefixes(version)) {
    for (std::string& key : timing_keys(prefix, kFlatUnit)) keys.push_back(std::move(key));
  }
  keys.emplace_back(version == 1 ? kVersion1DerivedCopyRatio : kDerivedCopyRatios);  // allowed, and not read
  return keys;
}

VariantResult read_variant(const Value& item, int version) {
  const Keys keys = variant_keys(version);
  const Fields f = item.map("a variant", keys);
  VariantResult v;
  v.variant = f["variant"].text();
  for (const Value& param : f["params"].map("params", {}).all()) v.params.push_back({param.key(), param.text()});
  v.registers = f["registers"].integer<int>();
  v.spill_bytes = f["spill_bytes"].integer<int>();
  v.exact = f["exact"].boolean();
  read_cases(f["cases"], v);
  if (auto kind = f.optional("failure_kind")) v.failure_kind = kind->text();
  if (auto failure = f.optional("failure")) v.failure = failure->text();
  for (const auto& [regime, prefix] : variant_timing_prefixes(version)) v.timing(regime) = read_flat_timing(f, prefix);
  return v;
}

// Names are unique in their list: the gate and the reports find records by name.
void check_unique(std::set<std::string>& seen, const std::string& name, const Value& item, std::string_view what) {
  if (!seen.insert(name).second) item.source().fail(item.line(), "{} '{}' appears twice", what, name);
}

// A shape's timing keys in the file's format.
std::vector<std::pair<std::string_view, ShapeTiming>> shape_timings(int version) {
  if (version == 1) return {kVersion1ShapeTimings.begin(), kVersion1ShapeTimings.end()};
  return {kShapeTimings.begin(), kShapeTimings.end()};
}

// The keys of a shape of `family`: shape_fields() with the family's parameters.
Keys shape_keys(const KernelFamily& family, int version) {
  ShapeResult prototype;
  for (const ParameterSpec& spec : family.shape_parameters()) prototype.shape.parameters.push_back({spec.name});
  Keys keys = keys_of(shape_fields(prototype));
  keys.insert(keys.begin(), "name");
  for (const auto& [key, member] : shape_timings(version)) keys.emplace_back(key);
  if (version > 1) {
    keys.emplace_back("rotation");
    keys.emplace_back("run_to_run_noise");
  }
  keys.emplace_back("variants");
  return keys;
}

Rotation read_rotation(const Value& value) {
  const Fields f = value.map("rotation", keys_of(rotation_fields({})));
  Rotation r;
  r.copies = f["copies"].integer<int>();
  r.working_set_bytes = f["working_set_bytes"].integer<std::int64_t>();
  if (r.copies < 1) value.source().fail(value.line(), "rotation: copies must be at least 1, got {}", r.copies);
  return r;
}

std::vector<RunToRunNoise> read_noise(const Value& value) {
  Keys regimes;
  for (TimingRegime r : kTimingRegimes) regimes.emplace_back(regime_name(r));
  std::vector<RunToRunNoise> noises;
  for (const Value& entry : value.map("run_to_run_noise", regimes).all()) {
    const Fields f = entry.map(entry.key(), keys_of(noise_fields({})));
    RunToRunNoise n;
    n.regime = *regime_named(entry.key());
    n.noise = f["noise"].real();
    n.passes = f["passes"].integer<int>();
    n.variants = f["variants"].integer<int>();
    if (!(n.noise >= 0) || !std::isfinite(n.noise)) {
      entry.source().fail(entry.line(), "run_to_run_noise: {} noise must be a number >= 0", entry.key());
    }
    noises.push_back(n);
  }
  return noises;
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

ShapeResult read_shape(const Value& item, const KernelFamily& family, const Keys& keys, int version) {
  const Fields f = item.map("a shape", keys);
  ShapeResult s;
  s.shape.name = f["name"].text();
  s.shape.model = f["model"].text();
  read_parameters(f, item, family, s.shape);
  s.bytes_moved = f["bytes_moved"].integer<std::int64_t>();
  for (const auto& [key, member] : shape_timings(version)) {
    if (const std::optional<Value> timing = f.optional(std::string(key))) s.*member = read_flow_timing(*timing);
  }
  if (version > 1) {
    if (const std::optional<Value> rotation = f.optional("rotation")) s.rotation = read_rotation(*rotation);
    if (const std::optional<Value> noise = f.optional("run_to_run_noise")) s.run_to_run_noise = read_noise(*noise);
  }
  std::set<std::string> names;
  for (const Value& variant_item : f["variants"].list()) {
    s.variants.push_back(read_variant(variant_item, version));
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

TimingMethod read_timing_method(const Value& value, int version) {
  if (version == 1) {
    // Format 1's hot figure was the L2-resident one; it had no rotated regime and no noise passes.
    const Fields f = value.map("timing", {"hot", "cold", "repetitions", "max_spread"});
    TimingMethod m;
    m.l2_resident = f["hot"].text();
    m.cold = f["cold"].text();
    m.repetitions = f["repetitions"].integer<int>();
    m.max_spread = f["max_spread"].real();
    return m;
  }
  const Fields f = value.map("timing", keys_of(timing_method_fields({})));
  TimingMethod m;
  m.rotated = f["rotated"].text();
  m.l2_resident = f["l2_resident"].text();
  m.cold = f["cold"].text();
  m.repetitions = f["repetitions"].integer<int>();
  m.max_spread = f["max_spread"].real();
  m.noise_passes = f["noise_passes"].integer<int>();
  return m;
}

}  // namespace

std::string to_sweep_yaml(const SweepResults& results) {
  YamlText out;
  out.line(
      fmt::format("# exactune sweep results: measured by exactune sweep on {}; input to heuristics.yaml and the gate.",
                  comment_safe(results.device.name)));
  out.line("# Figures per regime: rotated (hot, inputs cycled past twice the L2), l2_resident (hot, the same buffers "
           "replayed),");
  out.line("# cold (L2 flushed); run_to_run_noise: how far apart separate passes were, against each pass's copy.");
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
  const Value version_value = Fields(source, root, line_of(root), "the top level", {})["exactune_sweep"];
  const int version = version_value.integer<int>();
  if (version != kSweepFormatVersion && version != kOldestSweepFormatVersion) {
    source.fail(version_value.line(), "exactune_sweep: {} is a format this exactune does not read (it reads {} and {})",
                version, kOldestSweepFormatVersion, kSweepFormatVersion);
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
  const Keys keys = shape_keys(*family, version);
  results.reference_recipe = top["reference_recipe"].text();
  // Sweeps written before the seed was recorded all ran on the default seed, 1.
  if (const std::optional<Value> seed = top.optional("seed")) results.seed = seed->integer<std::uint64_t>();
  results.created = top["created"].text();
  results.wall_s = top["wall_s"].real();
  results.device = read_device(top["gpu"]);
  results.timing = read_timing_method(top["timing"], version);
  std::set<std::string> names;
  for (const Value& item : top["shapes"].list()) {
    results.shapes.push_back(read_shape(item, *family, keys, version));
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
