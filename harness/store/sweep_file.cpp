#include "store/sweep_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>
#include "choose/heuristics.hpp"
#include "shapes/shape_parameters_reader.hpp"
#include "store/variant_params.hpp"
#include "util/strict_yaml.hpp"
#include "util/text_file.hpp"
#include "util/yaml_node_text.hpp"
#include "util/yaml_scalar.hpp"

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
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view(" ._-/").find(c) != std::string_view::npos;
  });
  return safe_characters && !yaml_reserved_word(text);
}

std::string yaml_string(std::string_view text) {
  return plain_is_safe(text) ? std::string(text) : yaml_double_quoted(text);
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


// The counts that make a file cut short, or with records cut out, fail to
// read: each shape's variants, before its list, and the shapes, on the last
// line (format 3 on). `planted` marks a sweep of kernels broken on purpose.
constexpr std::string_view kVariantCount = "variant_count";
constexpr std::string_view kShapeCount = "shape_count";
constexpr std::string_view kPlanted = "planted";
// A planted variant is named "<variant>.planted-<kind>".
constexpr std::string_view kPlantedSuffix = ".planted-";

// The search strategy (format 4 on): `strategy: {name: .., settings: ..}`,
// only in a sweep that recorded one; a variant it cut carries `screened_out:
// {round: .., <regime>: {median: .., ...}}` in place of timings.
constexpr std::string_view kStrategy = "strategy";
constexpr std::string_view kScreenedOut = "screened_out";
constexpr int kFirstStrategySweepFormat = 4;

KeyValues strategy_fields(const SweepResults& r) {
  return {{"name", yaml_string(r.strategy)}, {"settings", yaml_string(r.strategy_settings)}};
}

std::string screened_out_map(const ScreenedOut& screened) {
  KeyValues fields = {{"round", fmt::format("{}", screened.round)}};
  for (const auto& [regime, timing] : screened.timings) {
    fields.emplace_back(std::string(regime_name(regime)), flow_map(timing_fields(timing, "", kFlowUnit)));
  }
  return flow_map(fields);
}

// A sweep of part of the space (results.hpp): `shard: {index: .., count: ..}`,
// `only: <heuristics.yaml>`; a merge of shards: `merged_shards: N` and, when
// some were missing, `missing_shards: [..]`. Each only when it applies.
constexpr std::string_view kShard = "shard";
constexpr std::string_view kOnly = "only";
constexpr std::string_view kMergedShards = "merged_shards";
constexpr std::string_view kMissingShards = "missing_shards";

KeyValues scope_fields(const SweepResults& r) {
  KeyValues fields;
  if (r.shard) {
    fields.emplace_back(kShard, flow_map({{"index", fmt::format("{}", r.shard->index)},
                                          {"count", fmt::format("{}", r.shard->count)}}));
  }
  if (!r.only.empty()) fields.emplace_back(kOnly, yaml_string(r.only));
  if (r.merged_shards > 0) fields.emplace_back(kMergedShards, fmt::format("{}", r.merged_shards));
  if (!r.missing_shards.empty()) fields.emplace_back(kMissingShards, fmt::format("[{}]", fmt::join(r.missing_shards, ", ")));
  return fields;
}

// The oldest format that holds everything `r` records: a sweep without a
// strategy's records is written as format 3 was, so that the sweeps committed
// before strategies regenerate byte for byte.
int written_format(const SweepResults& r) {
  if (!r.strategy.empty()) return kSweepFormatVersion;
  for (const ShapeResult& s : r.shapes) {
    for (const VariantResult& v : s.variants) {
      if (v.screened_out) return kSweepFormatVersion;
    }
  }
  return kFirstStrategySweepFormat - 1;
}

// Everything before the shapes; `planted` only in a planted sweep.
KeyValues header_fields(const SweepResults& r) {
  KeyValues fields = {{"exactune_sweep", fmt::format("{}", written_format(r))},
                      {"family", yaml_string(r.family)},
                      {"reference_recipe", yaml_string(r.reference_recipe)},
                      {"seed", fmt::format("{}", r.seed)}};
  if (r.planted) fields.emplace_back(kPlanted, "true");
  for (KeyValues::value_type& field : KeyValues{{"created", yaml_string(r.created)},
                                                {"wall_s", yaml_number(r.wall_s)},
                                                {"gpu", flow_map(device_fields(r.device))},
                                                {"timing", flow_map(timing_method_fields(r.timing))}}) {
    fields.push_back(std::move(field));
  }
  if (!r.strategy.empty()) fields.emplace_back(kStrategy, flow_map(strategy_fields(r)));
  for (KeyValues::value_type& field : scope_fields(r)) fields.push_back(std::move(field));
  return fields;
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
  KeyValues fields = {{"noise", yaml_number(n.noise)},
                      {"passes", fmt::format("{}", n.passes)},
                      {"variants", fmt::format("{}", n.variants)}};
  if (n.shards > 0) {
    fields.emplace_back("across_shards", yaml_number(n.across_shards));
    fields.emplace_back("shards", fmt::format("{}", n.shards));
  }
  return fields;
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
  if (v.screened_out) out.field(kIndent, kScreenedOut, screened_out_map(*v.screened_out));
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
  out.field(kIndent, kVariantCount, fmt::format("{}", s.variants.size()));
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

// The oldest format whose counts (kVariantCount, kShapeCount) must be there,
// and whose variants are all of the family's space as it is now; older files
// are read without counts, and may record variants of an older space.
constexpr int kFirstCheckedSweepFormat = 3;

Keys keys_of(const KeyValues& fields) {
  Keys keys;
  for (const auto& [key, value] : fields) keys.push_back(key);
  return keys;
}

// The keys of one timing, as timing_fields() writes them.
Keys timing_keys(std::string_view prefix, std::string_view unit) { return keys_of(timing_fields({}, prefix, unit)); }

// A median is what the chooser ranks by and heuristics.yaml records, rounded
// to 1 ns: from 1 ns to 1000 s, so that it survives the rounding and any ratio
// of two stays finite.
constexpr double kShortestMedianUs = 1e-3;
constexpr double kLongestMedianUs = 1e9;

// Times are measured, so finite and > 0: a NaN, a negative or a zero median
// would compare as faster than anything (and pass a gate).
Timing read_timing(const Fields& fields, std::string_view prefix, std::string_view unit) {
  Timing t;
  const Value median = fields[timing_key(prefix, "median", unit)];
  t.median_us = median.positive_real();
  if (t.median_us < kShortestMedianUs || t.median_us > kLongestMedianUs) {
    median.source().fail(median.line(), "{} must be from {} to {} (1 ns to 1000 s), got {}", median.key(),
                         kShortestMedianUs, kLongestMedianUs, median.text());
  }
  t.min_us = fields[timing_key(prefix, "min", unit)].positive_real();
  t.max_us = fields[timing_key(prefix, "max", unit)].positive_real();
  t.samples = fields[timing_key(prefix, "samples", unit)].integer_at_least(1);
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
  if (version >= kFirstStrategySweepFormat) keys.emplace_back(kScreenedOut);
  return keys;
}

// What the file as a whole says about how to read its variants.
struct SweepContext {
  const KernelFamily& family;
  int version;
  bool planted;  // the file says `planted: true`: variants "<variant>.planted-<kind>" are allowed
};

// A variant must be one the family's space produces at the shape's size: its
// params name its configuration, spell its name and are valid there; a
// planted sweep's variant is such a variant with a ".planted-<kind>" suffix.
// A file of an older format may record variants of an older space, with other
// axes or values: a variant whose params do not name exactly the family's
// axes is read as it is there, to be gated by name (the chooser refuses it).
void check_variant(const Fields& f, VariantResult& v, const SweepContext& context, const Shape& shape) {
  const Value name = f["variant"];
  std::string_view base = v.variant;
  if (const std::size_t suffix = base.find(kPlantedSuffix); suffix != std::string_view::npos) {
    const std::string_view kind = base.substr(suffix + kPlantedSuffix.size());
    if (!context.planted) {
      name.source().fail(name.line(), "variant {} is planted, in a file without '{}: true' at the top", v.variant,
                         kPlanted);
    }
    const bool kind_ok = !kind.empty() && std::all_of(kind.begin(), kind.end(), [](char c) {
      return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_' ||
             c == '-';
    });
    if (!kind_ok) name.source().fail(name.line(), "variant {}: the planted kind must match [a-z0-9_-]+", v.variant);
    base = base.substr(0, suffix);
  }
  const Value params = f["params"];
  if (context.version < kFirstCheckedSweepFormat) {
    const std::vector<Value> entries = params.map("params", {}).all();
    std::set<std::string> keys, axes;
    for (const Value& entry : entries) keys.insert(entry.key());
    for (const Axis& axis : context.family.axes()) axes.insert(axis.name);
    if (keys != axes) {
      for (const Value& entry : entries) v.params.push_back({entry.key(), entry.text()});
      return;
    }
  }
  v.params = read_variant_params(context.family, params, base);
  const std::string why = context.family.exclusion(v.params, shape.size);
  if (!why.empty()) {
    name.source().fail(name.line(), "variant {} is not in the space of family {} at {} {}: {}", base,
                       context.family.name(), context.family.size_parameter(), shape.size, why);
  }
}

// A cut variant is an exact one that got no full timing: its round and at least one regime's screen.
ScreenedOut read_screened_out(const Value& value, const VariantResult& v) {
  Keys keys = {"round"};
  for (TimingRegime r : kTimingRegimes) keys.emplace_back(regime_name(r));
  const Fields f = value.map(value.key(), keys);
  ScreenedOut screened;
  screened.round = f["round"].integer_at_least(1);
  for (TimingRegime r : kTimingRegimes) {
    if (const std::optional<Value> timing = f.optional(std::string(regime_name(r)))) {
      screened.timings.emplace_back(r, read_flow_timing(*timing));
    }
  }
  const bool timed = std::any_of(kTimingRegimes.begin(), kTimingRegimes.end(),
                                 [&](TimingRegime r) { return v.timing(r).has_value(); });
  if (!v.exact || timed || screened.timings.empty()) {
    value.source().fail(value.line(),
                        "{}: only an exact variant without timings is screened out, with the figures of at least "
                        "one regime",
                        kScreenedOut);
  }
  return screened;
}

VariantResult read_variant(const Value& item, const SweepContext& context, const Shape& shape) {
  const Keys keys = variant_keys(context.version);
  const Fields f = item.map("a variant", keys);
  VariantResult v;
  v.variant = f["variant"].text();
  check_variant(f, v, context, shape);
  v.registers = f["registers"].integer_at_least(0);
  v.spill_bytes = f["spill_bytes"].integer_at_least(0);
  const Value exact = f["exact"];
  v.exact = exact.boolean();
  read_cases(f["cases"], v);
  if (v.exact && (v.cases_total == 0 || v.cases_passed != v.cases_total)) {
    exact.source().fail(exact.line(), "exact: true needs every case passed, got cases \"{}/{}\"", v.cases_passed,
                        v.cases_total);
  }
  if (auto kind = f.optional("failure_kind")) v.failure_kind = kind->text();
  if (auto failure = f.optional("failure")) v.failure = failure->text();
  for (const auto& [regime, prefix] : variant_timing_prefixes(context.version)) {
    v.timing(regime) = read_flat_timing(f, prefix);
  }
  if (const std::optional<Value> screened = f.optional(std::string(kScreenedOut))) {
    v.screened_out = read_screened_out(*screened, v);
  }
  return v;
}

// Names are unique in their list: the gate and the reports find records by name.
void check_unique(std::set<std::string>& seen, const std::string& name, const Value& item, std::string_view what) {
  if (!seen.insert(name).second) item.source().fail(item.line(), "{} '{}' appears twice", what, name);
}

// A count the file states (kVariantCount, kShapeCount) against what it holds:
// required from format 3 on, checked wherever given.
// `missing_line`: where its absence is reported.
void check_count(const Source& source, const Fields& fields, std::string_view key, std::size_t held,
                 int missing_line, int version, std::string_view what) {
  const std::optional<Value> count = fields.optional(key);
  if (!count) {
    if (version >= kFirstCheckedSweepFormat) {
      source.fail(missing_line, "{} is missing key '{}': the file is cut short or was edited by hand", what, key);
    }
    return;
  }
  const auto stated = count->integer_at_least<std::int64_t>(0);
  if (static_cast<std::uint64_t>(stated) != held) {
    count->source().fail(count->line(), "{} is {}, but {} holds {}: the file is cut short or was edited by hand", key,
                         stated, what, held);
  }
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
  keys.emplace_back(kVariantCount);
  keys.emplace_back("variants");
  return keys;
}

Rotation read_rotation(const Value& value) {
  const Fields f = value.map("rotation", keys_of(rotation_fields({})));
  Rotation r;
  r.copies = f["copies"].integer<int>();
  r.working_set_bytes = f["working_set_bytes"].integer_at_least<std::int64_t>(0);
  if (r.copies < 1) value.source().fail(value.line(), "rotation: copies must be at least 1, got {}", r.copies);
  return r;
}

std::vector<RunToRunNoise> read_noise(const Value& value) {
  Keys regimes;
  for (TimingRegime r : kTimingRegimes) regimes.emplace_back(regime_name(r));
  std::vector<RunToRunNoise> noises;
  for (const Value& entry : value.map("run_to_run_noise", regimes).all()) {
    const Fields f = entry.map(entry.key(), keys_of(noise_fields({.shards = 1})));
    RunToRunNoise n;
    n.regime = *regime_named(entry.key());
    n.noise = f["noise"].real();
    n.passes = f["passes"].integer_at_least(0);
    n.variants = f["variants"].integer_at_least(0);
    if (const std::optional<Value> shards = f.optional("shards")) n.shards = shards->integer_at_least(0);
    if (const std::optional<Value> across = f.optional("across_shards")) n.across_shards = across->non_negative_real();
    if (!(n.noise >= 0) || !std::isfinite(n.noise)) {
      entry.source().fail(entry.line(), "run_to_run_noise: {} noise must be a number >= 0", entry.key());
    }
    noises.push_back(n);
  }
  return noises;
}

ShapeResult read_shape(const Value& item, const Keys& keys, const SweepContext& context) {
  const Fields f = item.map("a shape", keys);
  ShapeResult s;
  s.shape.name = read_shape_name(f["name"]);  // heatmap files and heuristics.yaml's evidence are named by it
  s.shape.model = f["model"].text();
  read_shape_parameters(context.family, f, item, s.shape);
  s.bytes_moved = f["bytes_moved"].integer_at_least<std::int64_t>(0);
  for (const auto& [key, member] : shape_timings(context.version)) {
    if (const std::optional<Value> timing = f.optional(std::string(key))) s.*member = read_flow_timing(*timing);
  }
  if (context.version > 1) {
    if (const std::optional<Value> rotation = f.optional("rotation")) s.rotation = read_rotation(*rotation);
    if (const std::optional<Value> noise = f.optional("run_to_run_noise")) s.run_to_run_noise = read_noise(*noise);
  }
  const std::vector<Value> items = f["variants"].list();
  check_count(item.source(), f, kVariantCount, items.size(), item.line(), context.version,
              fmt::format("shape '{}'", s.shape.name));
  // Each name once, each a variant of the space (or a planted copy of one):
  // no more than the space holds, whatever the format.
  std::set<std::string> names;
  std::uint64_t planted = 0;
  const std::uint64_t space = space_size(context.family);
  for (const Value& variant_item : items) {
    s.variants.push_back(read_variant(variant_item, context, s.shape));
    const std::string& name = s.variants.back().variant;
    check_unique(names, name, variant_item, fmt::format("in shape '{}', variant", s.shape.name));
    const bool is_planted = is_planted_variant(name);
    if ((is_planted ? ++planted : names.size() - planted) > space) {
      variant_item.source().fail(variant_item.line(), "shape '{}' lists more {}variants than family {} has ({})",
                                 s.shape.name, is_planted ? "planted " : "", context.family.name(), space);
    }
  }
  return s;
}

// The chooser copies the device into heuristics.yaml: it must be one that
// file's reader takes (names, an architecture, SMs).
DeviceRecord read_device(const Value& value) {
  const Fields f = value.map("gpu", keys_of(device_fields({})));
  DeviceRecord d;
  d.name = f["name"].nonempty_text();
  d.slug = f["slug"].nonempty_text();
  const Value arch = f["arch"];
  d.arch = arch.nonempty_text();
  try {
    compute_capability(d.arch);
  } catch (const error& e) {
    arch.source().fail(arch.line(), "arch: {}", e.what());
  }
  d.sm_count = f["sm_count"].integer_at_least(1);
  d.l2_bytes = f["l2_bytes"].integer_at_least<std::int64_t>(0);
  d.memory_clock_khz = f["memory_clock_khz"].integer_at_least(0);
  d.memory_bus_bits = f["memory_bus_bits"].integer_at_least(0);
  d.driver_version = f["driver_version"].integer_at_least(0);
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
    m.repetitions = f["repetitions"].integer_at_least(0);
    m.max_spread = f["max_spread"].non_negative_real();
    return m;
  }
  const Fields f = value.map("timing", keys_of(timing_method_fields({})));
  TimingMethod m;
  m.rotated = f["rotated"].text();
  m.l2_resident = f["l2_resident"].text();
  m.cold = f["cold"].text();
  m.repetitions = f["repetitions"].integer_at_least(0);
  m.max_spread = f["max_spread"].non_negative_real();
  m.noise_passes = f["noise_passes"].integer_at_least(0);
  return m;
}

// A count of shards, or a shard's place among them: from 1 to kMaxShards.
int shard_count(const Value& value) {
  const int n = value.integer_at_least(1);
  if (n > kMaxShards) {
    value.source().fail(value.line(), "{} {}: a sweep is split into at most {} shards", value.key(), n, kMaxShards);
  }
  return n;
}

// scope_fields() read back: a shard's index from 1 to its count.
void read_scope(const Fields& top, SweepResults& results) {
  if (const std::optional<Value> shard = top.optional(std::string(kShard))) {
    const Fields f = shard->map(shard->key(), {"index", "count"});
    const Shard s{f["index"].integer_at_least(1), shard_count(f["count"])};
    if (s.index > s.count) shard->source().fail(shard->line(), "shard: index {} is beyond count {}", s.index, s.count);
    results.shard = s;
  }
  if (const std::optional<Value> only = top.optional(std::string(kOnly))) results.only = only->nonempty_text();
  if (const std::optional<Value> merged = top.optional(std::string(kMergedShards))) {
    results.merged_shards = shard_count(*merged);
  }
  if (const std::optional<Value> missing = top.optional(std::string(kMissingShards))) {
    const std::vector<Value> indices = missing->list();
    if (indices.size() > static_cast<std::size_t>(kMaxShards)) {
      missing->source().fail(missing->line(), "{} lists {} shards: a sweep is split into at most {} shards",
                             missing->key(), indices.size(), kMaxShards);
    }
    for (const Value& index : indices) results.missing_shards.push_back(shard_count(index));
  }
}

}  // namespace

std::string to_sweep_yaml(const SweepResults& results) {
  YamlText out;
  out.line(
      fmt::format("# exactune sweep results: measured by exactune sweep on {}; input to heuristics.yaml and the gate.",
                  yaml_comment_text(results.device.name)));
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
  out.line("# The last line: a file cut short lacks it.");
  out.field(0, kShapeCount, fmt::format("{}", results.shapes.size()));
  return out.take();
}

SweepResults parse_sweep_yaml(std::string_view text, const std::string& source_name) {
  const Source source(source_name);
  const YAML::Node root = strict_yaml::load_document(
      text, source, fmt::format("a map that starts with 'exactune_sweep: {}'", kSweepFormatVersion));
  // The version first: another version may well have other keys.
  const Value version_value = Fields(source, root, line_of(root), "the top level", {})["exactune_sweep"];
  const int version = version_value.integer<int>();
  if (version < kOldestSweepFormatVersion || version > kSweepFormatVersion) {
    source.fail(version_value.line(), "exactune_sweep: {} is a format this exactune does not read (it reads {} to {})",
                version, kOldestSweepFormatVersion, kSweepFormatVersion);
  }
  Keys top_keys = keys_of(header_fields({}));
  for (std::string_view key : {std::string_view(kPlanted), std::string_view("shapes"), kShapeCount}) {
    top_keys.emplace_back(key);
  }
  if (version >= kFirstStrategySweepFormat) top_keys.emplace_back(kStrategy);
  for (std::string_view key : {kShard, kOnly, kMergedShards, kMissingShards}) top_keys.emplace_back(key);
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
  if (const std::optional<Value> planted = top.optional(kPlanted)) results.planted = planted->boolean();
  const SweepContext context{*family, version, results.planted};
  const Keys keys = shape_keys(*family, version);
  results.reference_recipe = top["reference_recipe"].text();
  // Sweeps written before the seed was recorded all ran on the default seed, 1.
  if (const std::optional<Value> seed = top.optional("seed")) results.seed = seed->integer<std::uint64_t>();
  results.created = top["created"].text();
  results.wall_s = top["wall_s"].non_negative_real();
  results.device = read_device(top["gpu"]);
  results.timing = read_timing_method(top["timing"], version);
  if (const std::optional<Value> strategy = top.optional(std::string(kStrategy))) {
    const Fields f = strategy->map(strategy->key(), {"name", "settings"});
    results.strategy = f["name"].nonempty_text();
    results.strategy_settings = f["settings"].text();
  }
  read_scope(top, results);
  const Value shapes = top["shapes"];
  const std::vector<Value> items = shapes.list();
  if (items.size() > kMaxShapes) {
    source.fail(shapes.line(), "shapes holds {} shapes, more than the {} a sweep may hold", items.size(), kMaxShapes);
  }
  std::set<std::string> names;
  for (const Value& item : items) {
    results.shapes.push_back(read_shape(item, keys, context));
    check_unique(names, results.shapes.back().shape.name, item, "shape");
  }
  const int last_line = 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  check_count(source, top, kShapeCount, items.size(), last_line, version, "the file");
  return results;
}

bool is_planted_variant(std::string_view variant) { return variant.find(kPlantedSuffix) != std::string_view::npos; }

void write_sweep_file(const SweepResults& results, const std::filesystem::path& path) {
  write_text_file(path, to_sweep_yaml(results));
}

SweepResults read_sweep_file(const std::filesystem::path& path) {
  return parse_sweep_yaml(read_text_file(path, "sweep file"), path.string());
}

}  // namespace exactune
