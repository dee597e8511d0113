// Sweeping part of the space (issue 14, items 3 to 5): the shard partition,
// `exactune merge` and what it refuses, gate mode's selection from a
// heuristics table and the gate on the narrowed sweep it writes, and the
// CLI's --shard, --devices and a CPU sweep split in two; --shard auto's
// reading of Slurm's and Kubernetes' variables, through a made-up environment. The sweeps are the
// toy family's (support/recorded_sweep.hpp), the commands run in the CLI of the
// toy family.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <exactune/error.hpp>

#include "backends/gpu/cuda_driver.hpp"
#include "catch.hpp"
#include "choose/chooser.hpp"
#include "gate/gate.hpp"
#include "gate/gate_render.hpp"
#include "gate/gate_selection.hpp"
#include "space/selection.hpp"
#include "space/shard_from_engine.hpp"
#include "store/heuristics.hpp"
#include "store/heuristics_file.hpp"
#include "store/sweep_file.hpp"
#include "store/sweep_merge.hpp"
#include "support/recorded_sweep.hpp"
#include "support/run_cli.hpp"
#include "toy_family/toy_family.hpp"

using namespace exactune;
using namespace recorded;
namespace fs = std::filesystem;

namespace {

// What `f` threw, or "" when it threw nothing (Catch2 v2 and v3 spell their
// string matchers differently; this reads the same under both).
template <class F>
std::string message_of(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::vector<ShapeVariant> pairs_of(const SweepResults& sweep) {
  std::vector<ShapeVariant> pairs;
  for (const ShapeResult& s : sweep.shapes) {
    for (const VariantResult& v : s.variants) pairs.emplace_back(s.shape.name, v.variant);
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

// What `exactune sweep --shard i/n` would have written of `whole`.
SweepResults shard_sweep(const SweepResults& whole, Shard shard) {
  SweepResults part = whole;
  drop_unselected(part.shapes, shard_of(pairs_of(whole), shard));
  part.shard = shard;
  return part;
}

// Each sweep written as <dir>/<i>.yaml, read back as the merge reads them.
std::vector<ShardFile> shard_files(const TempDir& dir, const std::vector<SweepResults>& sweeps) {
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < sweeps.size(); ++i) {
    paths.push_back((dir.path() / fmt::format("{}.yaml", i + 1)).string());
    write_text(paths.back(), to_sweep_yaml(sweeps[i]));
  }
  return read_shard_files(paths);
}

std::string merge_error(const std::vector<ShardFile>& files, MergeOptions options = {}) {
  try {
    merge_shards(files, options);
  } catch (const input_error& e) {
    return e.what();
  }
  return "(no error)";
}

// The variant records of a sweep, each under its shape's definition, as the
// file spells them (without the shape's figures, which a merge takes across shards).
std::map<ShapeVariant, std::string> records_of(const SweepResults& sweep) {
  std::map<ShapeVariant, std::string> records;
  for (const ShapeResult& s : sweep.shapes) {
    for (const VariantResult& v : s.variants) {
      ShapeResult alone;
      alone.shape = s.shape;
      alone.bytes_moved = s.bytes_moved;
      alone.variants = {v};
      SweepResults one;
      one.shapes = {alone};
      records[{s.shape.name, v.variant}] = to_sweep_yaml(one);
    }
  }
  return records;
}

// A table chosen from `sweep`, written as <dir>/heuristics.yaml (gate mode
// names the file), and the shapes the sweep defines.
struct WrittenTable {
  Heuristics table;
  fs::path file;
  std::vector<Shape> shapes;
};

WrittenTable written_table(const TempDir& dir, const SweepResults& sweep) {
  WrittenTable written{choose_heuristics(sweep), dir.path() / "heuristics.yaml", {}};
  write_text(written.file, to_heuristics_yaml(written.table));
  for (const ShapeResult& s : sweep.shapes) written.shapes.push_back(s.shape);
  return written;
}

int verify_runs(const std::string& output) {
  std::smatch match;
  REQUIRE(std::regex_search(output, match, std::regex(R"(: (\d+) runs: )")));
  return std::stoi(match[1]);
}

}  // namespace

TEST_CASE("shards partition a sweep's (shape, variant) pairs: each exactly once, evenly, the same every time",
          "[shards]") {
  const std::vector<Shape> shapes = {exactune_test::toy_shape("a", 8, 2240), exactune_test::toy_shape("b", 16, 3072)};
  const std::vector<ShapeVariant> all = space_pairs(exactune_test::toy_family(), shapes, "*");
  REQUIRE(all.size() == 40);  // every variant of the toy serves both sizes
  REQUIRE(std::is_sorted(all.begin(), all.end()));
  for (int n = 1; n <= 5; ++n) {
    std::map<ShapeVariant, int> times_selected;
    std::vector<std::size_t> sizes;
    for (int i = 1; i <= n; ++i) {
      const Selection shard = shard_of(all, {i, n});
      CHECK(*shard.pairs() == *shard_of(all, {i, n}).pairs());
      sizes.push_back(shard.pairs()->size());
      for (const ShapeVariant& pair : *shard.pairs()) ++times_selected[pair];
      // Every shard has pairs of every shape: each measures every shape's baselines.
      for (const Shape& s : shapes) CHECK(shard.selects_any_of(s.name));
    }
    INFO("n = " << n);
    CHECK(times_selected.size() == all.size());
    CHECK(std::all_of(times_selected.begin(), times_selected.end(), [](const auto& p) { return p.second == 1; }));
    CHECK(*std::max_element(sizes.begin(), sizes.end()) - *std::min_element(sizes.begin(), sizes.end()) <= 1);
  }
}

TEST_CASE("a shard is i/n with 1 <= i <= n, and anything else is refused in the user's words", "[shards]") {
  CHECK(parse_shard("2/3") == Shard{2, 3});
  CHECK(parse_shard("1/1") == Shard{1, 1});
  for (const char* bad : {"3/2", "0/2", "x", "1/", "/2", "1/2/3", "-1/2", "1/0"}) {
    INFO(bad);
    CHECK(message_of([&] { parse_shard(bad); }).rfind(fmt::format("--shard {}: must be i/n", bad), 0) == 0);
  }
}

namespace {

// A made-up environment holding `variables` alone.
EnvironmentLookup environment_of(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const char* name) -> std::optional<std::string> {
    const auto it = variables.find(name);
    if (it == variables.end()) return std::nullopt;
    return it->second;
  };
}

Shard engine_shard(std::map<std::string, std::string> variables) {
  return shard_from_engine(environment_of(std::move(variables))).shard;
}

// The one-line refusal of `variables`; "" when they were taken.
std::string engine_refusal(std::map<std::string, std::string> variables) {
  return message_of([&] { shard_from_engine(environment_of(std::move(variables))); });
}

std::map<std::string, std::string> slurm_array(const char* id, const char* min, const char* max) {
  return {{"SLURM_ARRAY_TASK_ID", id}, {"SLURM_ARRAY_TASK_MIN", min}, {"SLURM_ARRAY_TASK_MAX", max}};
}

}  // namespace

TEST_CASE("shard auto maps a Slurm array's tasks min..max onto shards 1..n", "[shards][shard_auto]") {
  // --array=0-3 and --array=1-4: either base, the same four shards.
  CHECK(engine_shard(slurm_array("0", "0", "3")) == Shard{1, 4});
  CHECK(engine_shard(slurm_array("3", "0", "3")) == Shard{4, 4});
  CHECK(engine_shard(slurm_array("1", "1", "4")) == Shard{1, 4});
  CHECK(engine_shard(slurm_array("4", "1", "4")) == Shard{4, 4});
  // --array=3-7
  CHECK(engine_shard(slurm_array("3", "3", "7")) == Shard{1, 5});
  CHECK(engine_shard(slurm_array("5", "3", "7")) == Shard{3, 5});
  CHECK(engine_shard(slurm_array("7", "3", "7")) == Shard{5, 5});
  CHECK(shard_from_engine(environment_of(slurm_array("5", "3", "7"))).source == "Slurm job array task 5 of 3..7");
  // Slurm's own count and step agreeing, and EXACTUNE_SHARD_COUNT the same.
  auto agreeing = slurm_array("5", "3", "7");
  agreeing["SLURM_ARRAY_TASK_COUNT"] = "5";
  agreeing["SLURM_ARRAY_TASK_STEP"] = "1";
  agreeing["EXACTUNE_SHARD_COUNT"] = "5";
  CHECK(engine_shard(agreeing) == Shard{3, 5});
  // A count without a max; EXACTUNE_SHARD_COUNT where Slurm says no count.
  CHECK(engine_shard({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_COUNT", "3"}}) ==
        Shard{3, 3});
  CHECK(engine_shard({{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"EXACTUNE_SHARD_COUNT", "2"}}) ==
        Shard{1, 2});
  // Explicit i/n is untouched by any of this.
  CHECK(parse_shard("3/5") == Shard{3, 5});
}

TEST_CASE("shard auto maps a Kubernetes Indexed Job's index 0..n-1 onto shards 1..n", "[shards][shard_auto]") {
  CHECK(engine_shard({{"JOB_COMPLETION_INDEX", "0"}, {"EXACTUNE_SHARD_COUNT", "4"}}) == Shard{1, 4});
  CHECK(engine_shard({{"JOB_COMPLETION_INDEX", "3"}, {"EXACTUNE_SHARD_COUNT", "4"}}) == Shard{4, 4});
  CHECK(engine_shard({{"JOB_COMPLETION_INDEX", "0"}, {"EXACTUNE_SHARD_COUNT", "1"}}) == Shard{1, 1});
  CHECK(shard_from_engine(environment_of({{"JOB_COMPLETION_INDEX", "3"}, {"EXACTUNE_SHARD_COUNT", "4"}})).source ==
        "Kubernetes Indexed Job completion index 3 of 0..3");
}

TEST_CASE("shard auto refuses missing, garbage and inconsistent variables in one line that names them",
          "[shards][shard_auto]") {
  const std::string none = engine_refusal({{"EXACTUNE_SHARD_COUNT", "4"}, {"SLURM_ARRAY_TASK_ID", ""}});
  CHECK(none.rfind("--shard auto: no job engine's variables are set: SLURM_ARRAY_TASK_ID", 0) == 0);
  CHECK(contains(none, "JOB_COMPLETION_INDEX"));
  CHECK(engine_refusal({}) == none);
  // Each refusal: the variables, and the line that says what is wrong with them.
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> refused = {
      {{{"JOB_COMPLETION_INDEX", "2"}},
       "--shard auto: JOB_COMPLETION_INDEX=2 without EXACTUNE_SHARD_COUNT: Kubernetes sets no count; set "
       "EXACTUNE_SHARD_COUNT to the Indexed Job's completions"},
      {{{"JOB_COMPLETION_INDEX", "4"}, {"EXACTUNE_SHARD_COUNT", "4"}},
       "--shard auto: JOB_COMPLETION_INDEX=4 is outside 0..EXACTUNE_SHARD_COUNT-1 = 0..3"},
      {{{"JOB_COMPLETION_INDEX", "0"}, {"EXACTUNE_SHARD_COUNT", "0"}},
       "--shard auto: EXACTUNE_SHARD_COUNT=0: a sweep has at least one shard"},
      {{{"JOB_COMPLETION_INDEX", "0"}, {"EXACTUNE_SHARD_COUNT", "5000"}},
       "--shard auto: EXACTUNE_SHARD_COUNT=5000: a sweep is split into at most 4096 shards"},
      {{{"JOB_COMPLETION_INDEX", "one"}, {"EXACTUNE_SHARD_COUNT", "4"}},
       "--shard auto: JOB_COMPLETION_INDEX=one is not a whole number"},
      {{{"JOB_COMPLETION_INDEX", "1"}, {"EXACTUNE_SHARD_COUNT", "4x"}},
       "--shard auto: EXACTUNE_SHARD_COUNT=4x is not a whole number"},
      {{{"JOB_COMPLETION_INDEX", "-1"}, {"EXACTUNE_SHARD_COUNT", "4"}},
       "--shard auto: JOB_COMPLETION_INDEX=-1 is not a whole number"},
      {{{"JOB_COMPLETION_INDEX", " 1"}, {"EXACTUNE_SHARD_COUNT", "4"}},
       "--shard auto: JOB_COMPLETION_INDEX= 1 is not a whole number"},
      {{{"SLURM_ARRAY_TASK_ID", "99999999999999999999"}},
       "--shard auto: SLURM_ARRAY_TASK_ID=99999999999999999999 is too large"},
      {slurm_array("0", "0", "2147483648"), "--shard auto: SLURM_ARRAY_TASK_MAX=2147483648 is too large"},
      {slurm_array("0", "0", "2147483647"),
       "--shard auto: SLURM_ARRAY_TASK_MIN..SLURM_ARRAY_TASK_MAX = 0..2147483647 is 2147483648 tasks: a sweep is "
       "split into at most 4096 shards"},
      {slurm_array("8", "3", "7"),
       "--shard auto: SLURM_ARRAY_TASK_ID=8 is outside the array, SLURM_ARRAY_TASK_MIN..SLURM_ARRAY_TASK_MAX = 3..7"},
      {slurm_array("2", "3", "7"),
       "--shard auto: SLURM_ARRAY_TASK_ID=2 is outside the array, SLURM_ARRAY_TASK_MIN..SLURM_ARRAY_TASK_MAX = 3..7"},
      {{{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"EXACTUNE_SHARD_COUNT", "2"}},
       "--shard auto: SLURM_ARRAY_TASK_ID=2 is outside the array, SLURM_ARRAY_TASK_MIN..(its count) = 0..1"},
      {slurm_array("3", "3", "2"), "--shard auto: SLURM_ARRAY_TASK_MAX=2 is below SLURM_ARRAY_TASK_MIN=3"},
      {{{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_MIN", "3"}},
       "--shard auto: SLURM_ARRAY_TASK_ID=3 with none of SLURM_ARRAY_TASK_MAX, SLURM_ARRAY_TASK_COUNT or "
       "EXACTUNE_SHARD_COUNT: the count of shards is unknown"},
      {{{"SLURM_ARRAY_TASK_ID", "3"}, {"EXACTUNE_SHARD_COUNT", "4"}},
       "--shard auto: SLURM_ARRAY_TASK_ID=3 without SLURM_ARRAY_TASK_MIN: where the array starts is unknown (submit "
       "it with sbatch --array=A-B)"},
      {{{"SLURM_ARRAY_TASK_ID", "4"},
        {"SLURM_ARRAY_TASK_MIN", "0"},
        {"SLURM_ARRAY_TASK_MAX", "12"},
        {"SLURM_ARRAY_TASK_STEP", "4"}},
       "--shard auto: SLURM_ARRAY_TASK_STEP=4: a stepped array leaves shards out (submit it with sbatch "
       "--array=A-B)"},
      {{{"SLURM_ARRAY_TASK_ID", "3"},
        {"SLURM_ARRAY_TASK_MIN", "1"},
        {"SLURM_ARRAY_TASK_MAX", "5"},
        {"SLURM_ARRAY_TASK_COUNT", "3"}},
       "--shard auto: SLURM_ARRAY_TASK_COUNT=3 but SLURM_ARRAY_TASK_MIN..SLURM_ARRAY_TASK_MAX is 1..5: an array with "
       "gaps leaves shards out (submit it with sbatch --array=A-B)"},
      {{{"SLURM_ARRAY_TASK_ID", "3"},
        {"SLURM_ARRAY_TASK_MIN", "1"},
        {"SLURM_ARRAY_TASK_MAX", "5"},
        {"EXACTUNE_SHARD_COUNT", "4"}},
       "--shard auto: EXACTUNE_SHARD_COUNT=4 but the Slurm array, SLURM_ARRAY_TASK_MIN..SLURM_ARRAY_TASK_MAX = 1..5, "
       "has 5 tasks"},
      {{{"SLURM_ARRAY_TASK_ID", "1"},
        {"SLURM_ARRAY_TASK_MIN", "1"},
        {"SLURM_ARRAY_TASK_MAX", "2"},
        {"JOB_COMPLETION_INDEX", "0"}},
       "--shard auto: both SLURM_ARRAY_TASK_ID (Slurm) and JOB_COMPLETION_INDEX (Kubernetes) are set: which engine "
       "runs this is unclear; give --shard i/n"},
  };
  for (const auto& [variables, line] : refused) {
    INFO(line);
    CHECK(engine_refusal(variables) == line);
  }
}

TEST_CASE("merging the shards of a sweep gives one record per (shape, variant), each from its shard", "[shards]") {
  const TempDir dir("merge-records");
  const SweepResults whole = readable_sweep();
  const SweepResults merged = merge_shards(
      shard_files(dir, {shard_sweep(whole, {2, 3}), shard_sweep(whole, {1, 3}), shard_sweep(whole, {3, 3})}));
  const auto merged_records = records_of(merged), whole_records = records_of(whole);
  REQUIRE(merged_records.size() == whole_records.size());
  for (const auto& [pair, record] : whole_records) {
    INFO(pair.first << " " << pair.second);
    CHECK(merged_records.at(pair) == record);
  }
  CHECK(pairs_of(merged) == pairs_of(whole));
  std::vector<std::string> names, whole_names;
  for (const ShapeResult& s : merged.shapes) names.push_back(s.shape.name);
  for (const ShapeResult& s : whole.shapes) whole_names.push_back(s.shape.name);
  CHECK(names == whole_names);
  CHECK(merged.merged_shards == 3);
  CHECK_FALSE(merged.shard);
  CHECK_FALSE(merged.narrowed());
  CHECK(contains(to_sweep_yaml(merged), "merged_shards: 3\n"));
}

TEST_CASE("merging a single 1/1 shard reproduces the sweep's records and choices", "[shards]") {
  const TempDir dir("merge-one");
  SweepResults whole = readable_sweep();
  whole.shapes[0].run_to_run_noise = {RunToRunNoise{TimingRegime::rotated, 0.03, 3, 3}};
  SweepResults merged = merge_shards(shard_files(dir, {shard_sweep(whole, {1, 1})}));
  CHECK(merged.merged_shards == 1);
  merged.merged_shards = 0;
  CHECK(to_sweep_yaml(merged) == to_sweep_yaml(whole));
  CHECK(to_heuristics_yaml(choose_heuristics(merged)) == to_heuristics_yaml(choose_heuristics(whole)));
}

TEST_CASE("a merged shape's SM clock spans its shards' and keeps every throttled figure", "[shards]") {
  const TempDir dir("merge-clock");
  const SweepResults whole = readable_sweep();
  std::vector<SweepResults> shards = {shard_sweep(whole, {1, 3}), shard_sweep(whole, {2, 3}),
                                      shard_sweep(whole, {3, 3})};
  for (ShapeResult& shape : shards[0].shapes) shape.sm_clock = SmClockRecord{1980, 1900, 1980, 4, {}};
  for (ShapeResult& shape : shards[2].shapes) shape.sm_clock = SmClockRecord{1980, 1300, 1950, 5, {"copy cold"}};
  const SweepResults merged = merge_shards(shard_files(dir, shards));
  const ShapeResult& mid = *merged.find("mid");
  REQUIRE(mid.sm_clock);
  CHECK(*mid.sm_clock == SmClockRecord{1980, 1300, 1980, 9, {"copy cold"}});
  CHECK(parse_sweep_yaml(to_sweep_yaml(merged), "merged.yaml").find("mid")->sm_clock == mid.sm_clock);
}

TEST_CASE("a merged shape's copy is the median across shards and its noise takes in their copies' range", "[shards]") {
  const TempDir dir("merge-noise");
  const SweepResults whole = readable_sweep();
  std::vector<SweepResults> shards;
  const double copies[] = {2.0, 2.2, 2.1};
  for (int i = 1; i <= 3; ++i) {
    SweepResults s = shard_sweep(whole, {i, 3});
    for (ShapeResult& shape : s.shapes) {
      shape.copy_rotated = Timing{copies[i - 1], copies[i - 1], copies[i - 1], 20};
      shape.run_to_run_noise = {RunToRunNoise{TimingRegime::rotated, 0.01 * i, 3, 3}};
    }
    shards.push_back(s);
  }
  const SweepResults merged = merge_shards(shard_files(dir, shards));
  const ShapeResult& mid = *merged.find("mid");
  REQUIRE(mid.copy_rotated);
  CHECK(mid.copy_rotated->median_us == 2.1);
  const RunToRunNoise* noise = mid.noise(TimingRegime::rotated);
  REQUIRE(noise != nullptr);
  CHECK(noise->shards == 3);
  CHECK(noise->across_shards == Approx(0.2 / 2.1));
  CHECK(noise->noise == Approx(0.2 / 2.1));  // larger than any shard's own (at most 3%)
  CHECK(noise->passes == 3);
  // Read back as written.
  const SweepResults again = parse_sweep_yaml(to_sweep_yaml(merged), "merged.yaml");
  CHECK(again.find("mid")->noise(TimingRegime::rotated)->across_shards == noise->across_shards);
  // Two shards: the mean of the two.
  const TempDir two("merge-two");
  std::vector<SweepResults> halves = {shard_sweep(whole, {1, 2}), shard_sweep(whole, {2, 2})};
  for (int i = 0; i < 2; ++i) {
    for (ShapeResult& shape : halves[i].shapes)
      shape.copy_rotated = Timing{copies[2 * i], copies[2 * i], copies[2 * i], 20};
  }
  CHECK(merge_shards(shard_files(two, halves)).find("mid")->copy_rotated->median_us == Approx(2.05));
}

TEST_CASE(
    "merge refuses shards that differ in GPU, toolchain, recipe, seed, timing, strategy or table, naming both "
    "files, their lines and the field",
    "[shards]") {
  const TempDir dir("merge-mixed");
  const SweepResults whole = readable_sweep();
  struct Mix {
    std::string field;
    std::string key;  // the top-level key it is written under
    std::function<void(SweepResults&)> edit;
  };
  const std::vector<Mix> mixes = {
      {"gpu name", "gpu", [](SweepResults& r) { r.device.name = "NVIDIA H100"; }},
      {"gpu arch", "gpu", [](SweepResults& r) { r.device.arch = "sm_80"; }},
      {"gpu sm_count", "gpu", [](SweepResults& r) { r.device.sm_count = 114; }},
      {"gpu driver_version", "gpu", [](SweepResults& r) { r.device.driver_version = 12080; }},
      {"gpu nvrtc_version", "gpu", [](SweepResults& r) { r.device.nvrtc_version = "12.8"; }},
      {"reference_recipe", "reference_recipe", [](SweepResults& r) { r.reference_recipe = "toy-2"; }},
      {"seed", "seed", [](SweepResults& r) { r.seed = 2; }},
      {"timing", "timing", [](SweepResults& r) { r.timing.repetitions = 7; }},
      {"strategy", "strategy", [](SweepResults& r) { r.strategy = "halving"; }},
      {"only", "only", [](SweepResults& r) { r.only = "h.yaml"; }},
  };
  for (const Mix& mix : mixes) {
    INFO(mix.field);
    SweepResults second = shard_sweep(whole, {2, 2});
    mix.edit(second);
    const std::vector<ShardFile> files = shard_files(dir, {shard_sweep(whole, {1, 2}), second});
    const std::string message = merge_error(files);
    const auto line = [&](const ShardFile& f) {
      const std::string prefix = mix.key + ":";
      std::size_t at = f.text.find("\n" + prefix);
      return at == std::string::npos ? 1 : 2 + std::count(f.text.begin(), f.text.begin() + at, '\n');
    };
    CHECK(contains(message, fmt::format("{}:{}: {} is ", files[1].path, line(files[1]), mix.field)));
    CHECK(contains(message, fmt::format("but {}:{} has ", files[0].path, line(files[0]))));
  }
}

TEST_CASE(
    "merge refuses a shard given twice, shards of different n, a file that is no shard, and a set with "
    "shards missing unless partial is allowed",
    "[shards]") {
  const TempDir dir("merge-sets");
  const SweepResults whole = readable_sweep();
  CHECK(contains(merge_error(shard_files(dir, {shard_sweep(whole, {1, 2}), shard_sweep(whole, {1, 2})})),
                 "shard 1/2 is given twice"));
  CHECK(contains(merge_error(shard_files(dir, {shard_sweep(whole, {1, 2}), shard_sweep(whole, {2, 3})})),
                 "shard 2/3, but"));
  CHECK(contains(merge_error(shard_files(dir, {shard_sweep(whole, {1, 2}), whole})), "2.yaml:1: no 'shard' field"));
  const std::vector<ShardFile> partial = shard_files(dir, {shard_sweep(whole, {1, 3}), shard_sweep(whole, {3, 3})});
  CHECK(merge_error(partial) ==
        "shard(s) 2 of 3 are missing: merge every shard, or pass --allow-partial to merge "
        "what there is (its sweep.yaml then says which are missing)");
  const SweepResults merged = merge_shards(partial, {.allow_partial = true});
  CHECK(merged.missing_shards == std::vector<int>{2});
  CHECK(merged.narrowed());
  CHECK(parse_sweep_yaml(to_sweep_yaml(merged), "partial.yaml").missing_shards == std::vector<int>{2});
  // Shards that overlap are no partition.
  SweepResults overlapping = shard_sweep(whole, {2, 2});
  overlapping.shapes[0].variants.push_back(shard_sweep(whole, {1, 2}).shapes[0].variants[0]);
  CHECK(contains(merge_error(shard_files(dir, {shard_sweep(whole, {1, 2}), overlapping})), "is also in"));
}

TEST_CASE("gate mode selects each choice's chosen variant and runner-up on the shape it rests on, and nothing else",
          "[shards]") {
  const TempDir dir("gate-selection");
  auto [table, file, shapes] = written_table(dir, readable_sweep());
  const Selection selection = gate_selection(table, file.string(), exactune_test::toy_family(), shapes, "*");
  std::set<ShapeVariant> expected;
  for (const Choice& c : table.device.choices) {
    expected.insert({c.shape, c.chosen.variant});
    if (!c.runner_up.empty()) expected.insert({c.shape, c.runner_up});
  }
  REQUIRE(selection.pairs() != nullptr);
  CHECK(*selection.pairs() == expected);
  CHECK(expected.count({"mid", kDefault}) == 1);
  CHECK_FALSE(selection.selects_any_of("untimed-4000"));  // no choice rests on it
  // A table resting on a shape the sweep does not define is refused at that shape's line.
  shapes.erase(std::remove_if(shapes.begin(), shapes.end(), [](const Shape& s) { return s.name == "mid"; }),
               shapes.end());
  const std::string refused =
      message_of([&] { gate_selection(table, file.string(), exactune_test::toy_family(), shapes, "*"); });
  CHECK(refused.find(file.string() + ":") != std::string::npos);
  CHECK(refused.find("rests on shape 'mid'") != std::string::npos);
}

TEST_CASE(
    "the gate on a narrowed candidate compares what it selected: passes with the chosen variants, fails "
    "without one",
    "[shards]") {
  const TempDir dir("gate-narrowed");
  const SweepResults baseline = readable_sweep();
  const auto [table, file, shapes] = written_table(dir, baseline);
  SweepResults candidate = baseline;
  drop_unselected(candidate.shapes, gate_selection(table, file.string(), exactune_test::toy_family(), shapes, "*"));
  candidate.only = file.string();
  GateOptions options;
  for (const ShapeResult& s : baseline.shapes) {
    if (const Choice* c = table.device.choice_for(s.shape.size, s.shape.rows()))
      options.chosen[s.shape.name] = c->chosen.variant;
  }
  const GateReport passed = compare_sweeps(baseline, candidate, options);
  INFO(render_gate_table(passed));
  CHECK(passed.passed());
  CHECK(passed.outside_selection > 0);
  CHECK(passed.count(GateChange::removed_variant) == 0);
  CHECK(passed.count(GateChange::removed_shape) == 0);
  CHECK(passed.count(GateChange::lost_exactness) == 0);
  CHECK(passed.count(GateChange::within_noise) > 0);
  CHECK(contains(gate_summary_line(passed), "pairs outside the candidate's selection"));
  // The same candidate, not narrowed, is missing whole shapes.
  SweepResults whole_claimed = candidate;
  whole_claimed.only.clear();
  CHECK_FALSE(compare_sweeps(baseline, whole_claimed, options).passed());
  // Without mid's chosen variant it fails.
  SweepResults missing = candidate;
  for (ShapeResult& s : missing.shapes) {
    if (s.shape.name == "mid") {
      std::erase_if(s.variants, [&](const VariantResult& v) { return v.variant == options.chosen.at("mid"); });
    }
  }
  const GateReport failed = compare_sweeps(baseline, missing, options);
  CHECK_FALSE(failed.passed());
  CHECK(failed.count(GateChange::chosen_removed) == 1);
  // A shard is merged before it is gated.
  SweepResults shard = candidate;
  shard.shard = Shard{1, 2};
  CHECK(message_of([&] { compare_sweeps(baseline, shard, options); }).find("merge its shards first") !=
        std::string::npos);
}

TEST_CASE("the sweep says what is wrong with --shard and --devices in one line", "[shards][cli_messages]") {
  for (const char* shard : {"3/2", "x"}) {
    const CliResult r = run_toy_cli(fmt::format("sweep --shard {} --variants 't32_*'", shard));
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output == fmt::format("exactune: error: --shard {}: must be i/n, whole numbers with 1 <= i <= n (e.g. 1/2 "
                                  "and 2/2 are the two halves of a sweep)\n",
                                  shard));
  }
  INFO("the CPU suites run with CUDA_VISIBLE_DEVICES empty (tests/CMakeLists.txt): no GPU is visible to them");
  REQUIRE(why_no_gpu().has_value());
  const TempDir dir("devices");
  const fs::path shapes = dir.path() / "shapes.yaml";
  write_text(shapes, "shapes:\n  - {name: s-l64, model: test, rows: 2, length: 64}\n");
  const CliResult r = run_toy_cli(fmt::format("sweep --devices all --shapes '{}' --variants 't32_*'", shapes.string()));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  CHECK(contains(r.output, "exactune: error: --devices: no usable GPU ("));
}

TEST_CASE("sweep --shard auto without a job engine's variables is refused in one line", "[shards][cli_messages]") {
  const std::string unset =
      "env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX -u EXACTUNE_SHARD_COUNT -u SLURM_ARRAY_TASK_MIN "
      "-u SLURM_ARRAY_TASK_MAX -u SLURM_ARRAY_TASK_COUNT -u SLURM_ARRAY_TASK_STEP";
  const CliResult r = run_shell(fmt::format("{} '{}' sweep --shard auto --variants 't32_*'", unset, EXACTUNE_TOY_CLI));
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  CHECK(r.output.rfind("exactune: error: --shard auto: no job engine's variables are set: SLURM_ARRAY_TASK_ID", 0) ==
        0);
  const CliResult outside = run_shell(
      fmt::format("{} JOB_COMPLETION_INDEX=2 EXACTUNE_SHARD_COUNT=2 '{}' sweep --shard auto --variants 't32_*'", unset,
                  EXACTUNE_TOY_CLI));
  INFO(outside.output);
  CHECK(outside.exit_code == 2);
  CHECK(outside.output ==
        "exactune: error: --shard auto: JOB_COMPLETION_INDEX=2 is outside 0..EXACTUNE_SHARD_COUNT-1 = 0..1\n");
}

TEST_CASE("a CPU sweep's two halves (--shard 1/2, 2/2) verify disjoint halves that add up to the whole", "[shards]") {
  const TempDir dir("cpu-shards");
  const fs::path shapes = dir.path() / "shapes.yaml";
  write_text(shapes,
             "shapes:\n"
             "  - {name: s-l64, model: test, rows: 2, length: 64}\n"
             "  - {name: s-l128, model: test, rows: 2, length: 128, scale: 0.5}\n");
  const std::string base = fmt::format("sweep --cpu --rows 1 --shapes '{}' --variants 't32_*_right'", shapes.string());
  const CliResult whole = run_toy_cli(base);
  INFO(whole.output);
  REQUIRE(whole.exit_code == 0);
  const CliResult first = run_toy_cli(base + " --shard 1/2");
  const CliResult second = run_toy_cli(base + " --shard 2/2");
  INFO(first.output << second.output);
  REQUIRE(first.exit_code == 0);
  REQUIRE(second.exit_code == 0);
  CHECK(contains(first.output, " shard 1/2: "));
  CHECK(verify_runs(first.output) > 0);
  CHECK(verify_runs(second.output) > 0);
  CHECK(verify_runs(first.output) + verify_runs(second.output) == verify_runs(whole.output));
  // Kubernetes' index 1 of 2 is the second half.
  const CliResult from_engine = run_shell(
      fmt::format("env -u SLURM_ARRAY_TASK_ID JOB_COMPLETION_INDEX=1 EXACTUNE_SHARD_COUNT=2 '{}' {} --shard auto",
                  EXACTUNE_TOY_CLI, base));
  INFO(from_engine.output);
  REQUIRE(from_engine.exit_code == 0);
  CHECK(contains(from_engine.output,
                 "sweep: --shard auto is shard 2/2 (Kubernetes Indexed Job completion index 1 of 0..1)\n"));
  CHECK(contains(from_engine.output, " shard 2/2: "));
  CHECK(verify_runs(from_engine.output) == verify_runs(second.output));
}
