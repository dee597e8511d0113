// The format of sweep.yaml, version by version: every key the writer writes and
// the reader accepts, and how each value is spelled, in one place. A field
// builder (`*_fields`) gives the keys and the values together: the writer writes
// them, the reader takes their keys (yaml::keys_of) as the keys a map may hold,
// so the two cannot drift apart. Internal to store/.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <exactune/family.hpp>
#include <exactune/results.hpp>

#include "store/sweep_file.hpp"
#include "util/strict_yaml.hpp"
#include "util/yaml_writer.hpp"

namespace exactune::sweep_format {

using strict_yaml::Keys;
using yaml::KeyValues;

// A timing is written two ways: a shape's figures as a flow map under one key
// (`copy_rotated_us: {median: .., min: .., max: .., samples: ..}`), a variant's
// as flat keys (`rotated_median_us`, ..., `cold_median_us`, ...) so a variant
// reads as one block. Both spell their keys with timing_key(), the writer and
// the reader alike.
inline constexpr std::array<std::string_view, 4> kTimingFields = {"median", "min", "max", "samples"};

std::string timing_key(std::string_view prefix, std::string_view field, std::string_view unit);

// The keys of a timing's flow map, and the prefixes of a variant's flat keys.
inline constexpr std::string_view kFlowUnit = "";
inline constexpr std::string_view kFlatUnit = "_us";
// A variant's figure of a regime is spelled "<regime>_median_us", ...
std::string flat_prefix(TimingRegime r);
// Format 1 had no rotated figure; its hot one (no prefix) was L2-resident.
inline constexpr std::string_view kVersion1HotPrefix = "";
inline constexpr std::string_view kVersion1ColdPrefix = "cold_";
// Written for readers (a figure over its copy's, per regime) and recomputed by whoever needs it.
inline constexpr std::string_view kDerivedCopyRatios = "copy_ratios";
inline constexpr std::string_view kVersion1DerivedCopyRatio = "copy_ratio";

// A timing's summary fields; with `with_samples`, and samples kept, its raw
// samples as well (format 5 on): `samples_us: [..]` in a flow map,
// `<regime>_samples_us: [..]` among a variant's flat keys, each the shortest
// decimal that reads back to the same double, as many as `samples` counts.
KeyValues timing_fields(const Timing& t, std::string_view prefix, std::string_view unit, bool with_samples = false);
inline constexpr std::string_view kSamplesList = "samples_us";
inline constexpr int kFirstSamplesSweepFormat = 5;
// Format 6: a shape's SM clock record (SmClockRecord), `sm_clock: {default_mhz: .., min_mhz: .., max_mhz: ..,
// figures: .., throttled: [..]}`, where the timer read one.
inline constexpr int kFirstSmClockSweepFormat = 6;
inline constexpr std::string_view kSmClock = "sm_clock";
KeyValues sm_clock_fields(const SmClockRecord& r);

// The figures whose raw samples are written: those a choice or the gate rests
// on. Every figure of the shape's own (the copy and the reference chain, in
// every regime), and in each regime the kSampledVariants fastest exact
// variants there (by median, then name), which hold the chosen configuration,
// its runners-up and the variants "the same as the best". Any other figure is
// written as its summary only, so that a file stays a size a person reads.
inline constexpr int kSampledVariants = 8;
bool samples_written(const ShapeResult& s, const VariantResult& v, TimingRegime r);

KeyValues device_fields(const DeviceRecord& d);

KeyValues timing_method_fields(const TimingMethod& m);

// The counts that make a file cut short, or with records cut out, fail to
// read: each shape's variants, before its list, and the shapes, on the last
// line (format 3 on). `planted` marks a sweep of kernels broken on purpose.
inline constexpr std::string_view kVariantCount = "variant_count";
inline constexpr std::string_view kShapeCount = "shape_count";
inline constexpr std::string_view kPlanted = "planted";
// A planted variant is named "<variant>.planted-<kind>".
inline constexpr std::string_view kPlantedSuffix = ".planted-";

// The search strategy (format 4 on): `strategy: {name: .., settings: ..}`,
// only in a sweep that recorded one; a variant it cut carries `screened_out:
// {round: .., <regime>: {median: .., ...}}` in place of timings.
inline constexpr std::string_view kStrategy = "strategy";
inline constexpr std::string_view kScreenedOut = "screened_out";
inline constexpr int kFirstStrategySweepFormat = 4;

KeyValues strategy_fields(const SweepResults& r);

// A sweep of part of the space (results.hpp): `shard: {index: .., count: ..}`,
// `only: <heuristics.yaml>`; a merge of shards: `merged_shards: N` and, when
// some were missing, `missing_shards: [..]`. Each only when it applies.
inline constexpr std::string_view kShard = "shard";
inline constexpr std::string_view kOnly = "only";
inline constexpr std::string_view kMergedShards = "merged_shards";
inline constexpr std::string_view kMissingShards = "missing_shards";

KeyValues scope_fields(const SweepResults& r);

// The oldest format that holds everything `r` records: a sweep without raw
// samples is written as format 4 was, and one without a strategy's records as
// format 3 was, so that the sweeps committed before them regenerate byte for byte.
int written_format(const SweepResults& r);

// Everything before the shapes; `planted` only in a planted sweep.
KeyValues header_fields(const SweepResults& r);

// The figures a shape carries about itself, each written only when measured.
using ShapeTiming = std::optional<Timing> ShapeResult::*;
inline const std::array<std::pair<std::string_view, ShapeTiming>, 6> kShapeTimings = {{
    {"copy_rotated_us", &ShapeResult::copy_rotated},
    {"copy_l2_resident_us", &ShapeResult::copy_l2_resident},
    {"copy_cold_us", &ShapeResult::copy_cold},
    {"reference_chain_rotated_us", &ShapeResult::reference_chain_rotated},
    {"reference_chain_l2_resident_us", &ShapeResult::reference_chain_l2_resident},
    {"reference_chain_cold_us", &ShapeResult::reference_chain_cold},
}};
// Format 1's: no rotated figures, "hot" L2-resident, and the reference chain called "eager".
inline const std::array<std::pair<std::string_view, ShapeTiming>, 4> kVersion1ShapeTimings = {{
    {"copy_us", &ShapeResult::copy_l2_resident},
    {"copy_cold_us", &ShapeResult::copy_cold},
    {"eager_us", &ShapeResult::reference_chain_l2_resident},
    {"eager_cold_us", &ShapeResult::reference_chain_cold},
}};

KeyValues rotation_fields(const Rotation& r);

KeyValues noise_fields(const RunToRunNoise& n);

// A shape's fields after its name and before its timings: its model, its
// parameters in the family's order, as its shape file spells them, and the
// bytes a fused kernel moves.
KeyValues shape_fields(const ShapeResult& s);

// The oldest format whose counts (kVariantCount, kShapeCount) must be there,
// and whose variants are all of the family's space as it is now; older files
// are read without counts, and may record variants of an older space.
inline constexpr int kFirstCheckedSweepFormat = 3;

// The keys of one timing, as timing_fields() writes them, with its samples'
// in a format that has them.
Keys timing_keys(std::string_view prefix, std::string_view unit, bool with_samples = false);

// A variant's timing keys, per regime: its flat prefix in the file's format
// (format 1 has no rotated figure).
std::vector<std::pair<TimingRegime, std::string>> variant_timing_prefixes(int version);

Keys variant_keys(int version);

// A shape's timing keys in the file's format.
std::vector<std::pair<std::string_view, ShapeTiming>> shape_timings(int version);

// The keys of a shape of `family`: shape_fields() with the family's parameters.
Keys shape_keys(const KernelFamily& family, int version);

}  // namespace exactune::sweep_format
