#include "store/sweep_format.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <tuple>

namespace exactune::sweep_format {

std::string flat_prefix(TimingRegime r) { return fmt::format("{}_", regime_name(r)); }

std::string timing_key(std::string_view prefix, std::string_view field, std::string_view unit) {
  return fmt::format("{}{}{}", prefix, field, field == "samples" ? "" : unit);
}

KeyValues timing_fields(const Timing& t, std::string_view prefix, std::string_view unit, bool with_samples) {
  const std::array<std::string, 4> values = {yaml::number(t.median_us), yaml::number(t.min_us), yaml::number(t.max_us),
                                             fmt::format("{}", t.samples)};
  KeyValues fields;
  for (std::size_t i = 0; i < kTimingFields.size(); ++i) {
    fields.emplace_back(timing_key(prefix, kTimingFields[i], unit), values[i]);
  }
  if (with_samples && !t.samples_us.empty()) {
    std::vector<std::string> samples;
    samples.reserve(t.samples_us.size());
    for (double us : t.samples_us) samples.push_back(yaml::number(us));
    fields.emplace_back(fmt::format("{}{}", prefix, kSamplesList), yaml::flow_list(samples));
  }
  return fields;
}

bool samples_written(const ShapeResult& s, const VariantResult& v, TimingRegime r) {
  const std::optional<Timing>& mine = v.timing(r);
  if (!v.exact || !mine || mine->samples_us.empty()) return false;
  int faster = 0;
  for (const VariantResult& other : s.variants) {
    const std::optional<Timing>& theirs = other.timing(r);
    if (!other.exact || !theirs || &other == &v) continue;
    if (std::tie(theirs->median_us, other.variant) < std::tie(mine->median_us, v.variant)) ++faster;
  }
  return faster < kSampledVariants;
}

KeyValues device_fields(const DeviceRecord& d) {
  return {{"name", yaml::string(d.name)},
          {"slug", yaml::string(d.slug)},
          {"arch", yaml::string(d.arch)},
          {"sm_count", fmt::format("{}", d.sm_count)},
          {"l2_bytes", fmt::format("{}", d.l2_bytes)},
          {"memory_clock_khz", fmt::format("{}", d.memory_clock_khz)},
          {"memory_bus_bits", fmt::format("{}", d.memory_bus_bits)},
          {"driver_version", fmt::format("{}", d.driver_version)},
          {"nvrtc_version", yaml::string(d.nvrtc_version)}};
}

KeyValues timing_method_fields(const TimingMethod& m) {
  return {{"rotated", yaml::string(m.rotated)},
          {"l2_resident", yaml::string(m.l2_resident)},
          {"cold", yaml::string(m.cold)},
          {"repetitions", fmt::format("{}", m.repetitions)},
          {"max_spread", yaml::number(m.max_spread)},
          {"noise_passes", fmt::format("{}", m.noise_passes)}};
}

KeyValues strategy_fields(const SweepResults& r) {
  return {{"name", yaml::string(r.strategy)}, {"settings", yaml::string(r.strategy_settings)}};
}

KeyValues scope_fields(const SweepResults& r) {
  KeyValues fields;
  if (r.shard) {
    fields.emplace_back(kShard, yaml::flow_map({{"index", fmt::format("{}", r.shard->index)},
                                                {"count", fmt::format("{}", r.shard->count)}}));
  }
  if (!r.only.empty()) fields.emplace_back(kOnly, yaml::string(r.only));
  if (r.merged_shards > 0) fields.emplace_back(kMergedShards, fmt::format("{}", r.merged_shards));
  if (!r.missing_shards.empty())
    fields.emplace_back(kMissingShards, fmt::format("[{}]", fmt::join(r.missing_shards, ", ")));
  return fields;
}

namespace {

bool writes_samples(const SweepResults& r) {
  for (const ShapeResult& s : r.shapes) {
    for (const auto& [key, member] : kShapeTimings) {
      if ((s.*member) && !(s.*member)->samples_us.empty()) return true;
    }
    for (const VariantResult& v : s.variants) {
      for (TimingRegime regime : kTimingRegimes) {
        if (samples_written(s, v, regime)) return true;
      }
    }
  }
  return false;
}

}  // namespace

int written_format(const SweepResults& r) {
  for (const ShapeResult& s : r.shapes) {
    if (s.sm_clock) return kFirstSmClockSweepFormat;
  }
  if (writes_samples(r)) return kFirstSamplesSweepFormat;
  if (!r.strategy.empty()) return kFirstSamplesSweepFormat - 1;
  for (const ShapeResult& s : r.shapes) {
    for (const VariantResult& v : s.variants) {
      if (v.screened_out) return kFirstSamplesSweepFormat - 1;
    }
  }
  return kFirstStrategySweepFormat - 1;
}

KeyValues header_fields(const SweepResults& r) {
  KeyValues fields = {{"exactune_sweep", fmt::format("{}", written_format(r))},
                      {"family", yaml::string(r.family)},
                      {"reference_recipe", yaml::string(r.reference_recipe)},
                      {"seed", fmt::format("{}", r.seed)}};
  if (r.planted) fields.emplace_back(kPlanted, "true");
  for (KeyValues::value_type& field : KeyValues{{"created", yaml::string(r.created)},
                                                {"wall_s", yaml::number(r.wall_s)},
                                                {"gpu", yaml::flow_map(device_fields(r.device))},
                                                {"timing", yaml::flow_map(timing_method_fields(r.timing))}}) {
    fields.push_back(std::move(field));
  }
  if (!r.strategy.empty()) fields.emplace_back(kStrategy, yaml::flow_map(strategy_fields(r)));
  for (KeyValues::value_type& field : scope_fields(r)) fields.push_back(std::move(field));
  return fields;
}

KeyValues rotation_fields(const Rotation& r) {
  return {{"copies", fmt::format("{}", r.copies)}, {"working_set_bytes", fmt::format("{}", r.working_set_bytes)}};
}

KeyValues noise_fields(const RunToRunNoise& n) {
  KeyValues fields = {{"noise", yaml::number(n.noise)},
                      {"passes", fmt::format("{}", n.passes)},
                      {"variants", fmt::format("{}", n.variants)}};
  if (n.shards > 0) {
    fields.emplace_back("across_shards", yaml::number(n.across_shards));
    fields.emplace_back("shards", fmt::format("{}", n.shards));
  }
  return fields;
}

KeyValues sm_clock_fields(const SmClockRecord& r) {
  std::vector<std::string> throttled;
  for (const std::string& figure : r.throttled) throttled.push_back(yaml::string(figure));
  return {{"default_mhz", fmt::format("{}", r.default_mhz)},
          {"min_mhz", fmt::format("{}", r.min_mhz)},
          {"max_mhz", fmt::format("{}", r.max_mhz)},
          {"figures", fmt::format("{}", r.figures)},
          {"throttled", yaml::flow_list(throttled)}};
}

KeyValues shape_fields(const ShapeResult& s) {
  KeyValues fields = {{"model", yaml::string(s.shape.model)}};
  for (const ShapeParameter& p : s.shape.parameters) fields.emplace_back(p.name, p.text());
  fields.emplace_back("bytes_moved", fmt::format("{}", s.bytes_moved));
  return fields;
}

Keys timing_keys(std::string_view prefix, std::string_view unit, bool with_samples) {
  Timing prototype;
  if (with_samples) prototype.samples_us = {1};
  return yaml::keys_of(timing_fields(prototype, prefix, unit, with_samples));
}

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
    for (std::string& key : timing_keys(prefix, kFlatUnit, version >= kFirstSamplesSweepFormat)) {
      keys.push_back(std::move(key));
    }
  }
  keys.emplace_back(version == 1 ? kVersion1DerivedCopyRatio : kDerivedCopyRatios);  // allowed, and not read
  if (version >= kFirstStrategySweepFormat) keys.emplace_back(kScreenedOut);
  return keys;
}

std::vector<std::pair<std::string_view, ShapeTiming>> shape_timings(int version) {
  if (version == 1) return {kVersion1ShapeTimings.begin(), kVersion1ShapeTimings.end()};
  return {kShapeTimings.begin(), kShapeTimings.end()};
}

Keys shape_keys(const KernelFamily& family, int version) {
  ShapeResult prototype;
  for (const ParameterSpec& spec : family.shape_parameters()) prototype.shape.parameters.push_back({spec.name});
  Keys keys = yaml::keys_of(shape_fields(prototype));
  keys.insert(keys.begin(), "name");
  for (const auto& [key, member] : shape_timings(version)) keys.emplace_back(key);
  if (version > 1) {
    keys.emplace_back("rotation");
    keys.emplace_back("run_to_run_noise");
  }
  if (version >= kFirstSmClockSweepFormat) keys.emplace_back(kSmClock);
  keys.emplace_back(kVariantCount);
  keys.emplace_back("variants");
  return keys;
}

}  // namespace exactune::sweep_format

namespace exactune {

bool is_planted_variant(std::string_view variant) {
  return variant.find(sweep_format::kPlantedSuffix) != std::string_view::npos;
}

}  // namespace exactune
