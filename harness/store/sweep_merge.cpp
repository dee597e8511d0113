#include "store/sweep_merge.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include <exactune/error.hpp>

#include "store/sweep_file.hpp"
#include "time/statistics.hpp"
#include "util/text_file.hpp"

namespace exactune {
namespace {

// The line of a top-level key in a sweep.yaml (1 when the file does not write it, e.g. an empty strategy).
int line_of_key(const std::string& text, std::string_view key) {
  std::istringstream in(text);
  int number = 0;
  const std::string prefix = fmt::format("{}:", key);
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.rfind(prefix, 0) == 0) return number;
  }
  return 1;
}

std::string where(const ShardFile& file, std::string_view key) {
  return fmt::format("{}:{}", file.path, line_of_key(file.text, key));
}

std::string shard_words(const Shard& s) { return fmt::format("{}/{}", s.index, s.count); }

// What shards of one sweep must share: the top-level key it is written under,
// its name in messages, its value in words, and why it must be the same.
struct SharedField {
  std::string_view key;
  std::string_view name;
  std::function<std::string(const SweepResults&)> value;
  std::string_view why;
};

const std::vector<SharedField>& shared_fields() {
  static const std::vector<SharedField> fields = {
      {"family", "family", [](const SweepResults& r) { return r.family; }, "one sweep is of one family"},
      {"reference_recipe", "reference_recipe", [](const SweepResults& r) { return r.reference_recipe; },
       "exactness is proven against one reference"},
      {"seed", "seed", [](const SweepResults& r) { return fmt::format("{}", r.seed); },
       "exactness is proven on the same inputs"},
      {"gpu", "gpu name", [](const SweepResults& r) { return r.device.name; }, "one sweep is of one GPU model"},
      {"gpu", "gpu arch", [](const SweepResults& r) { return r.device.arch; }, "one sweep is of one GPU model"},
      {"gpu", "gpu sm_count", [](const SweepResults& r) { return fmt::format("{}", r.device.sm_count); },
       "one sweep is of one GPU model"},
      {"gpu", "gpu driver_version", [](const SweepResults& r) { return fmt::format("{}", r.device.driver_version); },
       "one sweep is of one toolchain"},
      {"gpu", "gpu nvrtc_version", [](const SweepResults& r) { return r.device.nvrtc_version; },
       "one sweep is of one toolchain"},
      {"timing", "timing",
       [](const SweepResults& r) {
         const TimingMethod& m = r.timing;
         return fmt::format("rotated '{}', l2_resident '{}', cold '{}', repetitions {}, max_spread {}, noise_passes {}",
                            m.rotated, m.l2_resident, m.cold, m.repetitions, m.max_spread, m.noise_passes);
       },
       "figures of one sweep are timed alike"},
      {"strategy", "strategy",
       [](const SweepResults& r) { return fmt::format("'{}' ({})", r.strategy, r.strategy_settings); },
       "one sweep searches one way"},
      {"only", "only", [](const SweepResults& r) { return r.only; }, "one sweep selects from one table"},
      {"planted", "planted", [](const SweepResults& r) { return r.planted ? "true" : "false"; },
       "planted kernels are tests of the harness, not evidence"},
  };
  return fields;
}

void check_compatible(const std::vector<ShardFile>& shards) {
  for (const ShardFile& file : shards) {
    if (!file.results.shard) {
      throw input_error(
          fmt::format("{}:1: no 'shard' field: not the sweep.yaml of an `exactune sweep --shard i/n`", file.path));
    }
  }
  const ShardFile& first = shards.front();
  for (const ShardFile& file : shards) {
    for (const SharedField& field : shared_fields()) {
      const std::string mine = field.value(file.results), theirs = field.value(first.results);
      if (mine != theirs) {
        throw input_error(fmt::format("{}: {} is {}, but {} has {}: {}", where(file, field.key), field.name, mine,
                                      where(first, field.key), theirs, field.why));
      }
    }
    if (file.results.shard->count != first.results.shard->count) {
      throw input_error(fmt::format("{}: shard {}, but {} is shard {}: shards of one sweep have the same n",
                                    where(file, "shard"), shard_words(*file.results.shard), where(first, "shard"),
                                    shard_words(*first.results.shard)));
    }
  }
  std::map<int, const ShardFile*> seen;
  for (const ShardFile& file : shards) {
    const auto [it, added] = seen.emplace(file.results.shard->index, &file);
    if (!added) {
      throw input_error(fmt::format("{}: shard {} is given twice (also {})", where(file, "shard"),
                                    shard_words(*file.results.shard), where(*it->second, "shard")));
    }
  }
}

// Shards of one sweep sweep the same shapes. Pairs go round robin over the
// sweep's pairs, sorted by shape: two pairs of a shape in one shard are n
// apart, with every shard's turn between them. So a shape that one shard
// holds two pairs of is in every shard; and where it is not, the shards were
// given other shape sets, and a merge would report each shape with part of
// its variants.
void check_same_shapes(const std::vector<ShardFile>& shards) {
  for (const ShardFile& holder : shards) {
    for (const ShapeResult& s : holder.results.shapes) {
      const auto pairs = std::count_if(s.variants.begin(), s.variants.end(),
                                       [](const VariantResult& v) { return !is_planted_variant(v.variant); });
      if (pairs < 2) continue;
      for (const ShardFile& file : shards) {
        if (file.results.find(s.shape.name) != nullptr) continue;
        throw input_error(fmt::format(
            "{}: shard {} has no shape '{}', but {} (shard {}) holds {} of its variants: shards of one sweep sweep "
            "the same shapes (each holds every n-th (shape, variant) pair), so these were given other shape sets",
            where(file, "shapes"), shard_words(*file.results.shard), s.shape.name, where(holder, "shapes"),
            shard_words(*holder.results.shard), pairs));
      }
    }
  }
}

std::vector<int> missing_shards(const std::vector<ShardFile>& shards) {
  std::set<int> given;
  for (const ShardFile& file : shards) given.insert(file.results.shard->index);
  std::vector<int> missing;
  for (int i = 1; i <= shards.front().results.shard->count; ++i) {
    if (!given.count(i)) missing.push_back(i);
  }
  return missing;
}

// One order holding each list's items in that list's order (a shard's shapes
// and variants are each a subsequence of the whole sweep's): repeatedly the
// first head, in list order, that no list holds further down.
std::vector<std::string> merged_order(std::vector<std::vector<std::string>> lists) {
  std::vector<std::size_t> next(lists.size(), 0);
  std::vector<std::string> order;
  std::set<std::string> taken;
  const auto later_in_some_list = [&](const std::string& item) {
    for (std::size_t l = 0; l < lists.size(); ++l) {
      if (std::find(lists[l].begin() + static_cast<std::ptrdiff_t>(std::min(next[l] + 1, lists[l].size())),
                    lists[l].end(), item) != lists[l].end()) {
        return true;
      }
    }
    return false;
  };
  for (;;) {
    for (std::size_t l = 0; l < lists.size(); ++l) {
      while (next[l] < lists[l].size() && taken.count(lists[l][next[l]])) ++next[l];
    }
    std::optional<std::string> pick;
    for (std::size_t l = 0; l < lists.size() && !pick; ++l) {
      if (next[l] < lists[l].size() && !later_in_some_list(lists[l][next[l]])) pick = lists[l][next[l]];
    }
    for (std::size_t l = 0; l < lists.size() && !pick; ++l) {
      if (next[l] < lists[l].size()) pick = lists[l][next[l]];  // orders that disagree: the first list's wins
    }
    if (!pick) return order;
    taken.insert(*pick);
    order.push_back(*pick);
  }
}

// The median of several shards' figures of one thing; of two middle ones,
// their mean, with the wider of their ranges and the samples of both.
Timing median_timing(std::vector<Timing> timings) {
  std::sort(timings.begin(), timings.end(), [](const Timing& a, const Timing& b) { return a.median_us < b.median_us; });
  const std::size_t n = timings.size();
  if (n % 2 == 1) return timings[n / 2];
  const Timing& a = timings[n / 2 - 1];
  const Timing& b = timings[n / 2];
  Timing merged{(a.median_us + b.median_us) / 2, std::min(a.min_us, b.min_us), std::max(a.max_us, b.max_us),
                a.samples + b.samples};
  // The samples of both, where both kept theirs: as many as the count says, or none.
  if (!a.samples_us.empty() && !b.samples_us.empty()) {
    merged.samples_us = a.samples_us;
    merged.samples_us.insert(merged.samples_us.end(), b.samples_us.begin(), b.samples_us.end());
  }
  return merged;
}

// The median of the figures the shards have; none when none has one.
std::optional<Timing> median_across(const std::vector<std::optional<Timing>>& figures) {
  std::vector<Timing> timings;
  for (const std::optional<Timing>& t : figures) {
    if (t) timings.push_back(*t);
  }
  return timings.empty() ? std::nullopt : std::optional<Timing>(median_timing(timings));
}

// The shards' SM clock records of one shape as one: the range over every
// figure read, and every throttled figure (shards are separate GPUs of one
// model, each flagged against its own default).
std::optional<SmClockRecord> merged_sm_clock(
    const std::vector<std::pair<const ShardFile*, const ShapeResult*>>& parts) {
  std::optional<SmClockRecord> merged;
  for (const auto& [file, shape] : parts) {
    if (!shape->sm_clock) continue;
    const SmClockRecord& r = *shape->sm_clock;
    if (!merged) {
      merged = r;
      continue;
    }
    merged->default_mhz = std::max(merged->default_mhz, r.default_mhz);
    merged->min_mhz = std::min(merged->min_mhz, r.min_mhz);
    merged->max_mhz = std::max(merged->max_mhz, r.max_mhz);
    merged->figures += r.figures;
    merged->throttled.insert(merged->throttled.end(), r.throttled.begin(), r.throttled.end());
  }
  return merged;
}

// One shape from the shards that timed it (in shard order, with their files).
ShapeResult merge_shape(const std::vector<std::pair<const ShardFile*, const ShapeResult*>>& parts) {
  const ShapeResult& first = *parts.front().second;
  ShapeResult merged = first;
  merged.variants.clear();
  merged.run_to_run_noise.clear();
  std::vector<std::vector<std::string>> variant_lists;
  std::map<std::string, std::pair<const ShardFile*, const VariantResult*>> variants;
  for (const auto& [file, shape] : parts) {
    if (shape->shape.describe_parameters() != first.shape.describe_parameters() ||
        shape->shape.model != first.shape.model) {
      throw input_error(
          fmt::format("{}: shape '{}' is {} ({}), but {} defines it as {} ({}): shards of one sweep "
                      "sweep the same shapes",
                      file->path, shape->shape.name, shape->shape.describe_parameters(), shape->shape.model,
                      parts.front().first->path, first.shape.describe_parameters(), first.shape.model));
    }
    variant_lists.emplace_back();
    for (const VariantResult& v : shape->variants) {
      const auto [it, added] = variants.emplace(v.variant, std::make_pair(file, &v));
      if (!added) {
        throw input_error(fmt::format("{}: shape '{}' variant {} is also in {}: shards of one sweep do not overlap",
                                      file->path, shape->shape.name, v.variant, it->second.first->path));
      }
      variant_lists.back().push_back(v.variant);
    }
  }
  for (const std::string& name : merged_order(variant_lists)) merged.variants.push_back(*variants.at(name).second);

  for (TimingRegime regime : kTimingRegimes) {
    std::vector<std::optional<Timing>> copies, chains;
    for (const auto& [file, shape] : parts) {
      copies.push_back(shape->copy(regime));
      chains.push_back(shape->reference_chain(regime));
    }
    merged.copy(regime) = median_across(copies);
    merged.reference_chain(regime) = median_across(chains);
    // The noise: the largest any shard measured, and the copy's range across shards.
    std::optional<RunToRunNoise> noise;
    std::vector<double> copy_medians;
    for (const auto& [file, shape] : parts) {
      if (const RunToRunNoise* n = shape->noise(regime)) {
        if (!noise) noise = RunToRunNoise{regime};
        noise->noise = std::max(noise->noise, n->noise);
        noise->passes = std::max(noise->passes, n->passes);
        noise->variants = std::max(noise->variants, n->variants);
      }
      if (const std::optional<Timing>& copy = shape->copy(regime)) copy_medians.push_back(copy->median_us);
    }
    if (copy_medians.size() >= 2) {
      if (!noise) noise = RunToRunNoise{regime};
      noise->across_shards = relative_range(copy_medians);
      noise->shards = static_cast<int>(copy_medians.size());
      noise->noise = std::max(noise->noise, noise->across_shards);
    }
    if (noise) merged.run_to_run_noise.push_back(*noise);
  }
  merged.sm_clock = merged_sm_clock(parts);
  return merged;
}

}  // namespace

std::vector<ShardFile> read_shard_files(const std::vector<std::string>& paths) {
  std::vector<ShardFile> files;
  for (const std::string& path : paths) {
    ShardFile file{path, read_text_file(path, "sweep file"), {}};
    file.results = parse_sweep_yaml(file.text, path);
    files.push_back(std::move(file));
  }
  return files;
}

SweepResults merge_shards(const std::vector<ShardFile>& shards, const MergeOptions& options) {
  if (shards.empty()) throw input_error("no shard to merge: name the sweep.yaml of each shard");
  check_compatible(shards);
  check_same_shapes(shards);
  const std::vector<int> missing = missing_shards(shards);
  if (!missing.empty() && !options.allow_partial) {
    throw input_error(
        fmt::format("shard(s) {} of {} are missing: merge every shard, or pass --allow-partial to merge "
                    "what there is (its sweep.yaml then says which are missing)",
                    shard_numbers_text(missing), shards.front().results.shard->count));
  }
  std::vector<const ShardFile*> ordered;
  for (const ShardFile& file : shards) ordered.push_back(&file);
  std::sort(ordered.begin(), ordered.end(),
            [](const ShardFile* a, const ShardFile* b) { return a->results.shard->index < b->results.shard->index; });

  SweepResults merged = ordered.front()->results;
  merged.shapes.clear();
  merged.shard.reset();
  merged.merged_shards = static_cast<int>(shards.size());
  merged.missing_shards = missing;
  std::vector<std::vector<std::string>> shape_lists;
  std::map<std::string, std::vector<std::pair<const ShardFile*, const ShapeResult*>>> parts;
  for (const ShardFile* file : ordered) {
    merged.created = std::max(merged.created, file->results.created);
    merged.wall_s = std::max(merged.wall_s, file->results.wall_s);  // the shards ran side by side
    shape_lists.emplace_back();
    for (const ShapeResult& s : file->results.shapes) {
      shape_lists.back().push_back(s.shape.name);
      parts[s.shape.name].emplace_back(file, &s);
    }
  }
  for (const std::string& name : merged_order(shape_lists)) merged.shapes.push_back(merge_shape(parts.at(name)));
  return merged;
}

std::string shard_numbers_text(const std::vector<int>& ascending) {
  std::vector<std::string> runs;
  for (std::size_t first = 0; first < ascending.size();) {
    std::size_t last = first;
    while (last + 1 < ascending.size() && ascending[last + 1] == ascending[last] + 1) ++last;
    runs.push_back(last == first ? fmt::format("{}", ascending[first])
                                 : fmt::format("{}-{}", ascending[first], ascending[last]));
    first = last + 1;
  }
  return fmt::format("{}", fmt::join(runs, ", "));
}

}  // namespace exactune
