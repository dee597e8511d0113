// sweep.yaml read back, strictly: every key known to its format version
// (sweep_format.hpp), every value of its type and range, every variant one of
// its family's space, every count as the file states it; each error names the
// file and line.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>

#include "shapes/shape_parameters_reader.hpp"
#include "store/gpu_identity.hpp"
#include "store/sweep_file.hpp"
#include "store/sweep_format.hpp"
#include "store/variant_params.hpp"
#include "util/strict_yaml.hpp"
#include "util/text_file.hpp"
#include "util/yaml_node_text.hpp"

namespace exactune {
namespace {

using namespace sweep_format;

using strict_yaml::Fields;
using strict_yaml::Keys;
using strict_yaml::Source;
using strict_yaml::Value;

// A median is what the chooser ranks by and heuristics.yaml records, rounded
// to 1 ns: from 1 ns to 1000 s, so that it survives the rounding and any ratio
// of two stays finite.
constexpr double kShortestMedianUs = 1e-3;
constexpr double kLongestMedianUs = 1e9;

// Times are measured, so finite and > 0: a NaN, a negative or a zero median
// would compare as faster than anything (and pass a gate). So is every raw
// sample (format 5 on, where kept), and there are as many as the count says.
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
  if (const std::optional<Value> list = fields.optional(fmt::format("{}{}", prefix, kSamplesList))) {
    const std::vector<Value> samples = list->list();
    if (samples.size() != static_cast<std::size_t>(t.samples)) {
      list->source().fail(list->line(), "{} holds {} samples, but {} says {}", list->key(), samples.size(),
                          timing_key(prefix, "samples", unit), t.samples);
    }
    t.samples_us.reserve(samples.size());
    for (const Value& sample : samples) t.samples_us.push_back(sample.positive_real());
  }
  return t;
}

// A variant's flat timing: absent when none of its keys is there, else all of them.
std::optional<Timing> read_flat_timing(const Fields& fields, std::string_view prefix) {
  const Keys keys = timing_keys(prefix, kFlatUnit);
  if (std::none_of(keys.begin(), keys.end(), [&](const std::string& key) { return fields.has(key); })) {
    if (fields.has(fmt::format("{}{}", prefix, kSamplesList))) {
      const Value list = fields[fmt::format("{}{}", prefix, kSamplesList)];
      list.source().fail(list.line(), "{} without the figure it belongs to ({})", list.key(),
                         timing_key(prefix, "median", kFlatUnit));
    }
    return std::nullopt;
  }
  return read_timing(fields, prefix, kFlatUnit);
}

// A shape's figure in a flow map; with its raw samples where the format has them.
Timing read_flow_timing(const Value& value, bool samples_allowed) {
  return read_timing(value.map(value.key(), timing_keys("", kFlowUnit, samples_allowed)), "", kFlowUnit);
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
      screened.timings.emplace_back(r, read_flow_timing(*timing, false));
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
void check_count(const Source& source, const Fields& fields, std::string_view key, std::size_t held, int missing_line,
                 int version, std::string_view what) {
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

Rotation read_rotation(const Value& value) {
  const Fields f = value.map("rotation", yaml::keys_of(rotation_fields({})));
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
    const Fields f = entry.map(entry.key(), yaml::keys_of(noise_fields({.shards = 1})));
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

SmClockRecord read_sm_clock(const Value& value) {
  const Fields f = value.map(std::string(kSmClock), yaml::keys_of(sm_clock_fields({})));
  SmClockRecord r;
  r.default_mhz = f["default_mhz"].integer_at_least(0);
  r.min_mhz = f["min_mhz"].integer_at_least(0);
  r.max_mhz = f["max_mhz"].integer_at_least(r.min_mhz);
  r.figures = f["figures"].integer_at_least(1);
  for (const Value& figure : f["throttled"].list()) r.throttled.push_back(figure.text());
  if (static_cast<int>(r.throttled.size()) > r.figures) {
    value.source().fail(value.line(), "{}: {} figures throttled of {} read", kSmClock, r.throttled.size(), r.figures);
  }
  return r;
}

ShapeResult read_shape(const Value& item, const Keys& keys, const SweepContext& context) {
  const Fields f = item.map("a shape", keys);
  ShapeResult s;
  s.shape.name = read_shape_name(f["name"]);  // heatmap files and heuristics.yaml's evidence are named by it
  s.shape.model = f["model"].text();
  read_shape_parameters(context.family, f, item, s.shape);
  s.bytes_moved = f["bytes_moved"].integer_at_least<std::int64_t>(0);
  for (const auto& [key, member] : shape_timings(context.version)) {
    if (const std::optional<Value> timing = f.optional(std::string(key))) {
      s.*member = read_flow_timing(*timing, context.version >= kFirstSamplesSweepFormat);
    }
  }
  if (context.version > 1) {
    if (const std::optional<Value> rotation = f.optional("rotation")) s.rotation = read_rotation(*rotation);
    if (const std::optional<Value> noise = f.optional("run_to_run_noise")) s.run_to_run_noise = read_noise(*noise);
  }
  if (context.version >= kFirstSmClockSweepFormat) {
    if (const std::optional<Value> clock = f.optional(std::string(kSmClock))) s.sm_clock = read_sm_clock(*clock);
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
  const Fields f = value.map("gpu", yaml::keys_of(device_fields({})));
  DeviceRecord d;
  GpuIdentity gpu = read_gpu_identity(f);
  d.name = std::move(gpu.name);
  d.slug = std::move(gpu.slug);
  d.arch = std::move(gpu.arch);
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
  const Fields f = value.map("timing", yaml::keys_of(timing_method_fields({})));
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
  Keys top_keys = yaml::keys_of(header_fields({}));
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

SweepResults read_sweep_file(const std::filesystem::path& path) {
  return parse_sweep_yaml(read_text_file(path, "sweep file"), path.string());
}

}  // namespace exactune
