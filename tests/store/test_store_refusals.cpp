// The store's readers refuse what they cannot trust (issue point 11). Each
// case a reliability probe found by hand is one test case here, and each
// checks the exit code (2: bad input) and the one line that says where (the
// file, and its line where it has lines) and what is wrong:
//   - a shard count that made `merge --allow-partial` list a billion missing shards;
//   - journal records of the wrong JSON type or value, and a step journaled twice;
//   - a line break that only some YAML readers see (a lone CR, NEL, LS, PS);
//   - shards that swept other shape sets, merged into reports of half-swept shapes;
//   - shape names that break the rule of names, and a GPU name that is markup in summary.md;
//   - an empty path taken for an option's default;
//   - a cache or journal the system will not let the run write, and a journal that is a folder;
//   - --rows past its bound, refused before anything is allocated.
// The files are the toy family's (tests/toy_family), the commands run in the
// CLI of the toy family.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <exactune/error.hpp>
#include <exactune/results.hpp>
#include <exactune/shapes.hpp>
#include <exactune/space.hpp>

#include "catch.hpp"
#include "choose/chooser.hpp"
#include "shapes/shape_file.hpp"
#include "space/selection.hpp"
#include "store/defaults_record.hpp"
#include "store/heuristics_file.hpp"
#include "store/sweep_file.hpp"
#include "store/sweep_merge.hpp"
#include "store/targets.hpp"
#include "supervise/journal.hpp"
#include "support/handmade_sweep.hpp"
#include "support/input_refusal.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_directory.hpp"
#include "support/yaml_readers.hpp"
#include "sweep/timing_steps.hpp"
#include "toy_family/toy_family.hpp"
#include "verify/verify_records.hpp"
#include "verify/verify_stage.hpp"

using namespace exactune;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

const KernelFamily& family() { return exactune_test::toy_family(); }

// The message of the exactune::error `check` throws, or "" when it throws none.
std::string error_of(const std::function<void()>& check) {
  try {
    check();
  } catch (const error& e) {
    return e.what();
  }
  return "";
}

void write_file(const fs::path& path, std::string_view text) { std::ofstream(path, std::ios::binary) << text; }

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The CLI's answer to bad input: exit 2 and exactly `line`.
void check_refused(const CliResult& r, const std::string& line) {
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output == "exactune: error: " + line + "\n");
}

// Shapes "a" (length 64) and "b" (length 128), as a shape file gives them.
std::vector<Shape> two_shapes() {
  return parse_shapes(family(),
                      "shapes:\n"
                      "  - {name: a, model: test, rows: 2, length: 64}\n"
                      "  - {name: b, model: test, rows: 2, length: 128}\n",
                      "shapes.yaml")
      .shapes;
}

// A timed sweep of two_shapes(): the first `per_shape[i]` valid variants of shape i, each exact and timed.
SweepResults small_sweep(std::array<std::size_t, 2> per_shape = {4, 4}) {
  SweepResults r = timed_sweep_header(family());
  const std::vector<Shape> shapes = two_shapes();
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    ShapeResult s;
    s.shape = shapes[i];
    s.bytes_moved = family().bytes_moved(s.shape);
    s.copy_rotated = Timing{4.0, 3.875, 4.125, 5};
    s.copy_cold = Timing{6.0, 5.875, 6.125, 5};
    const std::vector<Variant> variants = valid_variants(family(), s.shape.size);
    REQUIRE(variants.size() >= per_shape[i]);
    for (std::size_t k = 0; k < per_shape[i]; ++k) {
      s.variants.push_back(exact_timed_variant(variants[k], 10.0 + static_cast<double>(k)));
    }
    r.shapes.push_back(s);
  }
  return r;
}

// What `exactune sweep --shard i/n` writes of `whole`.
SweepResults shard_of_sweep(const SweepResults& whole, Shard shard) {
  std::vector<ShapeVariant> pairs;
  for (const ShapeResult& s : whole.shapes) {
    for (const VariantResult& v : s.variants) pairs.emplace_back(s.shape.name, v.variant);
  }
  std::sort(pairs.begin(), pairs.end());
  SweepResults part = whole;
  drop_unselected(part.shapes, shard_of(pairs, shard));
  part.shard = shard;
  return part;
}

fs::path write_sweep(const fs::path& path, const SweepResults& results) {
  write_file(path, to_sweep_yaml(results));
  return path;
}

// A shape file of one shape of two rows: a verify --cpu of one variant on it takes a moment.
fs::path one_small_shape(const fs::path& folder) {
  const fs::path file = folder / "shapes.yaml";
  write_file(file, "shapes:\n  - {name: one, model: test, rows: 2, length: 64}\n");
  return file;
}

constexpr std::string_view kOneVariant = "t32_v4_right";

constexpr std::string_view kStartOver = ": the journal is damaged; --restart discards it and starts the run over";

}  // namespace

TEST_CASE(
    "a shard count past the bound is refused on its line, by the reader and by merge --allow-partial, and at "
    "the bound, what is missing is said in ranges",
    "[store_refusals]") {
  const std::string shard = to_sweep_yaml(shard_of_sweep(small_sweep(), {1, 2}));
  const auto [billion, line] = edited(shard, "shard: {index: 1, count: 2}", "shard: {index: 1, count: 1000000000}");
  CHECK(refusal([&] { parse_sweep_yaml(billion, "t.yaml"); }) ==
        fmt::format("t.yaml:{}: count 1000000000: a sweep is split into at most {} shards", line, kMaxShards));
  // What a merge writes of missing shards is bounded the same way when read back.
  SweepResults merged = small_sweep();
  merged.merged_shards = 1;
  merged.missing_shards = {2};
  const std::string partial = to_sweep_yaml(merged);
  const auto [far, far_line] = edited(partial, "missing_shards: [2]", "missing_shards: [2, 5000]");
  CHECK(
      refusal([&] { parse_sweep_yaml(far, "t.yaml"); }) ==
      fmt::format("t.yaml:{}: missing_shards #2 5000: a sweep is split into at most {} shards", far_line, kMaxShards));

  // The probe's case, at a count it can afford: 2,000,000 shards wrote a 17 MB sweep.yaml.
  ScratchDirectory dir("store-refusals-shards");
  const fs::path two_million = dir.path() / "two-million.yaml";
  write_file(two_million, edited(shard, "count: 2}", "count: 2000000}").first);
  const CliResult refused = run_toy_cli(
      fmt::format("merge --allow-partial --out '{}' '{}'", (dir.path() / "out").string(), two_million.string()));
  check_refused(refused, fmt::format("{}:{}: count 2000000: a sweep is split into at most {} shards",
                                     two_million.string(), line, kMaxShards));
  CHECK_FALSE(fs::exists(dir.path() / "out" / "sweep.yaml"));

  const fs::path at_bound = dir.path() / "at-bound.yaml";
  write_file(at_bound, edited(shard, "count: 2}", fmt::format("count: {}}}", kMaxShards)).first);
  const CliResult allowed = run_toy_cli(
      fmt::format("merge --allow-partial --out '{}' '{}'", (dir.path() / "out").string(), at_bound.string()));
  INFO(allowed.output);
  CHECK(allowed.exit_code == 0);
  CHECK(contains(allowed.output, fmt::format("shard(s) 2-{} missing", kMaxShards)));
  CHECK(allowed.output.size() < 1000);
  CHECK(read_sweep_file(dir.path() / "out" / "sweep.yaml").missing_shards.size() ==
        static_cast<std::size_t>(kMaxShards - 1));

  CHECK(run_toy_cli("sweep --shard 1/5000 --variants 't32_*'").output ==
        fmt::format("exactune: error: --shard 1/5000: a sweep is split into at most {} shards\n", kMaxShards));
}

// A workload of several outputs names the one its first mismatch is in: the
// record keeps the name after the five numbers, and one output's records
// stay the five numbers they were.
TEST_CASE("a run record keeps the output its first mismatch is in, and refuses an empty or unnamed sixth field",
          "[store_refusals]") {
  VerifyRecord named;
  named.disposition = Disposition::incorrect;
  named.mismatches = 3;
  named.message = "3 of 8 elements differ";
  named.first_mismatch = Mismatch{1, 2, 0x3f80, 0x3f81, 1, "y"};
  const nlohmann::json json = run_record_json(named);
  CHECK(json["first_mismatch"].size() == 6);
  VerifyRecord read;
  read_run_record(json, read);
  REQUIRE(read.first_mismatch);
  CHECK(read.first_mismatch->output == "y");
  CHECK(read.first_mismatch->row == 1);

  VerifyRecord unnamed = named;
  unnamed.first_mismatch->output.clear();
  CHECK(run_record_json(unnamed)["first_mismatch"].size() == 5);
  for (const char* bad : {R"([1, 2, 16256, 16257, 1, ""])", R"([1, 2, 16256, 16257, 1, 7])"}) {
    INFO(bad);
    nlohmann::json damaged = json;
    damaged["first_mismatch"] = nlohmann::json::parse(bad);
    std::string why;
    try {
      read_run_record(damaged, read);
    } catch (const std::exception& e) {
      why = e.what();
    }
    CHECK(contains(why, "[..., ulps, output name]"));
  }
}

TEST_CASE(
    "a journal whose records are of the wrong type or value, or that journals a step twice with two "
    "results, is refused at its line, saying how to start over",
    "[store_refusals]") {
  ScratchDirectory dir("store-refusals-journal");
  const fs::path path = dir.path() / "verify.journal";
  const RunIdentity identity = {{"seed", "1"}};
  const std::string header =
      R"({"command":"verify","exactune_journal":1,"identity":{"seed":"1"},"started":"2026-12-01T00:00:00Z"})";
  const std::string step = "verify/a/c1/w1";
  const std::string good = R"({"record":{"disposition":"passed","message":"","mismatches":0},"step":"verify/a/c1/w1"})";
  const auto open = [&](const std::vector<std::string>& lines) {
    std::string text = header + "\n";
    for (const std::string& l : lines) text += l + "\n";
    write_file(path, text);
    return Journal::open(path, "verify", identity, true, false, verify_journal_records());
  };
  const auto refused_at = [&](const std::vector<std::string>& lines) { return refusal([&] { open(lines); }); };
  const std::string at2 = path.string() + ":2: step \"verify/a/c1/w1\": ";

  SECTION("sound records are read, and a step journaled twice with one result once") {
    CHECK(open({good, good}).steps() == 1);
  }
  SECTION("a value of the wrong JSON type") {
    CHECK(refused_at({edited(good, R"("mismatches":0)", R"("mismatches":"zero")").first}) ==
          at2 + "the record's 'mismatches' must be a whole number >= 0, got \"zero\"" + std::string(kStartOver));
    CHECK(refused_at({edited(good, R"("disposition":"passed")", R"("disposition":5)").first}) ==
          at2 + R"(the record's 'disposition' must be one of "passed", "incorrect", "failed", "not run", got 5)" +
              std::string(kStartOver));
    CHECK(refused_at({R"({"record":[],"step":"verify/a/c1/w1"})"}) ==
          at2 + "the record must be an object, got []" + std::string(kStartOver));
  }
  SECTION("a value the verifier never writes") {
    CHECK(refused_at({edited(good, R"("mismatches":0)", R"("mismatches":-7)").first}) ==
          at2 + "the record's 'mismatches' must be a whole number >= 0, got -7" + std::string(kStartOver));
    CHECK(refused_at({edited(good, R"("disposition":"passed")", R"("disposition":"maybe")").first}) ==
          at2 + R"(the record's 'disposition' must be one of "passed", "incorrect", "failed", "not run", got "maybe")" +
              std::string(kStartOver));
    CHECK(refused_at({edited(good, R"("mismatches":0)", R"("mismatches":3)").first}) ==
          at2 + "the record: a passed run has no mismatches, but it records 3" + std::string(kStartOver));
    CHECK(refused_at({R"({"crash":"exploded","message":"","step":"verify/a/c1/w1"})"}) ==
          at2 + R"(the line's 'crash' must be one of "failed", "hung", got "exploded")" + std::string(kStartOver));
    CHECK(refused_at({R"({"record":{"disposition":"passed","message":"","mismatches":0},"step":"time/a/w1"})"}) ==
          path.string() + ":2: step \"time/a/w1\": 'time/a/w1' is no step of the verifier" + std::string(kStartOver));
  }
  SECTION("a step journaled twice with two results") {
    const std::string incorrect =
        R"({"record":{"disposition":"incorrect","message":"2 differ","mismatches":2},"step":"verify/a/c1/w1"})";
    CHECK(refused_at({good, incorrect}) == path.string() + ":3: step \"verify/a/c1/w1\": it is journaled again with " +
                                               "another result (first at " + path.string() + ":2)" +
                                               std::string(kStartOver));
  }
  SECTION("a step this run journals is located at its line, as a step read back is") {
    Journal journal = open({good});
    journal.append("verify/a/c1/w2", nlohmann::json::parse(good)["record"]);
    CHECK(journal.find(step)->where == path.string() + ":2");
    CHECK(journal.find("verify/a/c1/w2")->where == path.string() + ":3");
  }
  SECTION("the supervisor journals no crash for a step its worker journaled just before it was killed") {
    open({good});
    CHECK_FALSE(Journal::append_crash(path, step, "hung", "ran past its deadline of 1.0 s and was killed"));
    CHECK(Journal::append_crash(path, "verify/a/c1/w2", "hung", "ran past its deadline of 1.0 s and was killed"));
    const Journal journal = Journal::open(path, "verify", identity, true, false, verify_journal_records());
    CHECK(journal.steps() == 2);
    REQUIRE(journal.find(step) != nullptr);
    CHECK_FALSE(journal.find(step)->crashed());
  }
}

TEST_CASE("a sweep's timing records are checked as the verifier's are: types, values, every regime",
          "[store_refusals]") {
  const Timing t{10.0, 9.875, 10.125, 5};
  nlohmann::json baselines;
  for (TimingRegime r : kTimingRegimes) {
    baselines["copy"][regime_name(r)] = timing_json(t);
    baselines["reference_chain"][regime_name(r)] = timing_json(t);
  }
  CHECK(error_of([&] { check_timing_step(baselines_step("a"), baselines); }).empty());
  CHECK(error_of([&] {
          check_timing_step(retime_step("a", TimingRegime::rotated, "w1"), {{"samples", {1.0, 2.0}}});
        }).empty());
  CHECK(error_of([&] { check_timing_step("time/a/w1", failure_record_json("launch failed")); }).empty());
  // The SM clock read after each figure travels with the figures, and is checked as they are.
  nlohmann::json clocked = baselines;
  clocked[kSmClockRecordKey] = {{"copy rotated", 1980}, {"reference_chain cold", 1755}};
  CHECK(error_of([&] { check_timing_step(baselines_step("a"), clocked); }).empty());
  CHECK(error_of([&] {
          check_timing_step(retime_step("a", TimingRegime::rotated, "w1"),
                            {{"samples", {1.0, 2.0}}, {kSmClockRecordKey, {{"w1 rotated", 1980}}}});
        }).empty());
  clocked[kSmClockRecordKey]["copy rotated"] = 0;
  CHECK(error_of([&] { check_timing_step(baselines_step("a"), clocked); }) ==
        "the record's 'sm_clock_mhz.copy rotated' must be a whole number from 1 to 1000000, got 0");

  // A figure's raw samples travel with it from worker to supervisor, bit for bit.
  Timing with_samples{10.0, 9.875, 10.125, 3};
  with_samples.samples_us = {10.125, 9.875, 10.0 + 1e-12};
  const nlohmann::json carried = nlohmann::json::parse(timing_json(with_samples).dump());
  CHECK(timing_from_json(carried, "copy").samples_us == with_samples.samples_us);
  CHECK(timing_from_json(timing_json(t), "copy").samples_us.empty());
  nlohmann::json miscounted = timing_json(with_samples);
  miscounted[3] = 4;
  CHECK(error_of([&] { timing_from_json(miscounted, "the record's 'copy.cold'"); }) ==
        "the record's 'copy.cold' holds 3 samples where it counts 4");

  nlohmann::json damaged = baselines;
  damaged["copy"]["cold"][3] = -5;
  CHECK(error_of([&] { check_timing_step(baselines_step("a"), damaged); }) ==
        "the record's 'copy.cold' samples must be a whole number from 1 to 2147483647, got -5");
  damaged = baselines;
  damaged["reference_chain"].erase("rotated");
  CHECK(error_of([&] { check_timing_step(baselines_step("a"), damaged); }) ==
        "the record's 'reference_chain' has no 'rotated'");
  CHECK(error_of([&] {
          check_timing_step(retime_step("a", TimingRegime::cold, "w1"), {{"samples", "fast"}});
        }) == "the record's 'samples' must be a non-empty list of numbers, got \"fast\"");
  CHECK(error_of([&] {
          check_timing_step("noise/0/a", {{"copy", {{"rotated", 4.0}}}});
        }) ==
        "'noise/0/a' names no timing step of the sweep (time/<shape>/baselines, screen/<shape>/<round>/<variant>, "
        "time/<shape>/<variant>, retime/<shape>/<regime>/<variant> or noise/<pass>/<shape>)");

  // In a sweep's journal, located at its line.
  ScratchDirectory dir("store-refusals-timing");
  const fs::path path = dir.path() / "sweep.journal";
  write_file(
      path,
      R"({"command":"sweep","exactune_journal":1,"identity":{},"started":"2026-12-01T00:00:00Z"})"
      "\n" +
          nlohmann::json({{"step", screen_step("a", 1, "w1")}, {"record", {{"samples", {{"hot", {1.0}}}}}}}).dump() +
          "\n");
  CHECK(refusal([&] { Journal::open(path, "sweep", {}, true, false, sweep_journal_records()); }) ==
        path.string() + ":2: step \"screen/a/1/w1\": the record's 'samples' holds an unknown key \"hot\" (known: " +
            "rotated, l2_resident, cold)" + std::string(kStartOver));
}

TEST_CASE(
    "verify --resume refuses a journal record of the wrong type: exit 2, the journal's line, no internal "
    "error",
    "[store_refusals]") {
  ScratchDirectory dir("store-refusals-resume");
  const fs::path journal = dir.path() / "verify.journal";
  const std::string run =
      fmt::format("verify --cpu --rows 1 --shapes '{}' --variants '{}' --plant-crash trap --journal '{}'",
                  one_small_shape(dir.path()).string(), kOneVariant, journal.string());
  // A worker with no supervisor above it dies in the planted trap, after the real variant's first run: it leaves
  // the journal a killed run leaves, its header and that run's record.
  const CliResult killed =
      run_shell(fmt::format("EXACTUNE_SUPERVISOR_FD=9 '{}' {} 9>/dev/null", EXACTUNE_TOY_CLI, run));
  INFO(killed.output);
  REQUIRE(fs::exists(journal));
  const std::string text = read_file(journal);
  REQUIRE(std::count(text.begin(), text.end(), '\n') == 2);
  // As the verifier wrote it, the journal reads: its records are what the checks take.
  const nlohmann::json header = nlohmann::json::parse(text.substr(0, text.find('\n')));
  const RunIdentity identity = header["identity"].get<RunIdentity>();
  CHECK(Journal::open(journal, "verify", identity, true, false, verify_journal_records()).steps() == 1);

  const std::string record = nlohmann::json::parse(text.substr(text.find('\n') + 1))["record"].dump();
  const std::string step = nlohmann::json::parse(text.substr(text.find('\n') + 1))["step"].dump();
  for (const auto& [from, to, cause] : std::vector<std::array<std::string, 3>>{
           {R"("mismatches":0)", R"("mismatches":"zero")",
            "the record's 'mismatches' must be a whole number >= 0, got \"zero\""},
           {R"("disposition":"passed")", R"("disposition":5)",
            R"(the record's 'disposition' must be one of "passed", "incorrect", "failed", "not run", got 5)"},
           {record, "[]", "the record must be an object, got []"}}) {
    write_file(journal, edited(text, from, to).first);
    const CliResult resumed = run_toy_cli(run + " --resume");
    check_refused(resumed, fmt::format("{}:2: step {}: {}{}", journal.string(), step, cause, kStartOver));
    CHECK(fs::exists(journal));  // refused, not discarded: --restart is the user's call
  }
}

TEST_CASE(
    "a line break only some YAML readers see (a lone CR, NEL, LS, PS) is refused at its line and column by "
    "every reader, CR LF is a line end, and the writers escape them",
    "[store_refusals]") {
  const std::string why_cr =
      "a carriage return (CR) without a line feed after it: YAML readers disagree on whether "
      "a line ends there; end lines with LF or CR LF";
  for (const auto& [name, read] : yaml_readers()) {
    INFO(name);
    CHECK(refusal([&] { read("a: 1\nb: 2 # x\rc: 3\n"); }) == "t.yaml:2:9: " + why_cr);
    CHECK(refusal([&] {
            read(
                "a: 1\xc2\x85"
                "b: 2\n");
          }) ==
          "t.yaml:1:5: U+0085 (NEXT LINE) is a line break to some YAML readers and not to others; end lines with LF");
    CHECK(refusal([&] {
            read(
                "a: 1 # \xe2\x80\xa8"
                "b: 2\n");
          }) ==
          "t.yaml:1:8: U+2028 (LINE SEPARATOR) is a line break to some YAML readers and not to others; end lines "
          "with LF");
    CHECK(refusal([&] { read("a: \"1\xe2\x80\xa9\"\n"); }) ==
          "t.yaml:1:6: U+2029 (PARAGRAPH SEPARATOR) is a line break to some YAML readers and not to others; end "
          "lines with LF");
  }
  // The probe's file: one shape to exactune, two to PyYAML, as the CR ends the comment for one and not the other.
  ScratchDirectory dir("store-refusals-cr");
  const fs::path lone_cr = dir.path() / "shapes.yaml";
  write_file(lone_cr,
             "shapes:\n"
             "  - {name: a, model: m, rows: 2, length: 64, scale: 0.5} # x\r"
             "  - {name: b, model: m, rows: 2, length: 128, scale: 0.5}\n");
  check_refused(run_toy_cli(fmt::format("list --shapes '{}'", lone_cr.string())),
                fmt::format("{}:2:61: {}", lone_cr.string(), why_cr));
  CHECK(parse_shapes(family(),
                     "shapes:\r\n"
                     "  - {name: a, model: m, rows: 2, length: 64, scale: 0.5} # x\r\n"
                     "  - {name: b, model: m, rows: 2, length: 128, scale: 0.5}\r\n",
                     "t.yaml")
            .shapes.size() == 2);

  // What exactune writes it reads back: a GPU name holding every such break round-trips.
  SweepResults r = small_sweep();
  r.device.name = "NVIDIA\rH200\xc2\x85\xe2\x80\xa8\xe2\x80\xa9";
  const std::string text = to_sweep_yaml(r);
  CHECK(parse_sweep_yaml(text, "t.yaml").device.name == r.device.name);
}

TEST_CASE("merge refuses shards that swept other shape sets, naming both shards and the shape", "[store_refusals]") {
  ScratchDirectory dir("store-refusals-merge");
  SweepResults only_a = small_sweep(), only_b = small_sweep();
  only_a.shapes.pop_back();
  only_b.shapes.erase(only_b.shapes.begin());
  const fs::path first = write_sweep(dir.path() / "1.yaml", shard_of_sweep(only_a, {1, 2}));
  const fs::path second = write_sweep(dir.path() / "2.yaml", shard_of_sweep(only_b, {2, 2}));
  const int shapes_line = edited(read_file(first), "\nshapes:", "").second + 1;
  const CliResult r = run_toy_cli(
      fmt::format("merge --out '{}' '{}' '{}'", (dir.path() / "out").string(), first.string(), second.string()));
  check_refused(r, fmt::format("{}:{}: shard 2/2 has no shape 'a', but {}:{} (shard 1/2) holds 2 of its variants: "
                               "shards of one sweep sweep the same shapes (each holds every n-th (shape, variant) "
                               "pair), so these were given other shape sets",
                               second.string(), shapes_line, first.string(), shapes_line));
  CHECK_FALSE(fs::exists(dir.path() / "out" / "summary.md"));

  // A shape of one pair is in one shard only, rightly: shards of one sweep still merge.
  const SweepResults whole = small_sweep({3, 1});
  const fs::path half1 = write_sweep(dir.path() / "h1.yaml", shard_of_sweep(whole, {1, 2}));
  const fs::path half2 = write_sweep(dir.path() / "h2.yaml", shard_of_sweep(whole, {2, 2}));
  REQUIRE(read_sweep_file(half1).find("b") == nullptr);
  const SweepResults merged = merge_shards(read_shard_files({half1.string(), half2.string()}));
  CHECK(merged.shapes.size() == 2);
}

TEST_CASE(
    "a shape name that breaks the rule of names is refused on its line wherever a file names one, and a GPU name "
    "is text, not markup, in summary.md",
    "[store_refusals]") {
  const std::string rule = "must match [a-z0-9._-]+ (lowercase letters, digits, '.', '_', '-')";
  // The second shape names no heatmap (the first is the larger of its size): it is refused all the same.
  const std::string text = to_sweep_yaml(small_sweep());
  const auto [renamed, line] = edited(text, "  - name: b\n", "  - name: \"B|<b>x\"\n");
  CHECK(refusal([&] { parse_sweep_yaml(renamed, "t.yaml"); }) ==
        fmt::format("t.yaml:{}: name 'B|<b>x' {}", line, rule));
  CHECK(refusal([&] { parse_targets_yaml("targets:\n  - {shape: \"A|b\", best_over_copy: 1.1}\n", "t.yaml"); }) ==
        fmt::format("t.yaml:2: name 'A|b' {}", rule));
  const std::string heuristics = to_heuristics_yaml(choose_heuristics(small_sweep()));
  const auto [evidence, evidence_line] = edited(heuristics, "shape: a\n", "shape: \"A<b>\"\n");
  CHECK(refusal([&] { parse_heuristics_yaml(evidence, "t.yaml"); }) ==
        fmt::format("t.yaml:{}: name 'A<b>' {}", evidence_line, rule));

  ScratchDirectory dir("store-refusals-names");
  const fs::path sweep = dir.path() / "sweep.yaml";
  write_file(sweep, renamed);
  check_refused(
      run_toy_cli(fmt::format("report --from '{}' --out '{}'", sweep.string(), (dir.path() / "out").string())),
      fmt::format("{}:{}: name 'B|<b>x' {}", sweep.string(), line, rule));

  SweepResults marked_up = small_sweep();
  marked_up.device.name = "NVIDIA H200\n<script>alert(1)</script>";
  marked_up.created = "2026-12-01\r\n# Injected | heading";
  write_sweep(sweep, marked_up);
  const CliResult r =
      run_toy_cli(fmt::format("report --from '{}' --out '{}'", sweep.string(), (dir.path() / "out").string()));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string summary = read_file(dir.path() / "out" / "summary.md");
  CHECK(summary.substr(0, summary.find('\n')) ==
        "# exactune sweep: NVIDIA H200 &lt;script>alert(1)&lt;/script> (sm_90, 132 SMs), CUDA driver 13.0, NVRTC 13.0");
  CHECK_FALSE(contains(summary, "<script"));
  CHECK(contains(summary, "Swept 2026-12-01  # Injected \\| heading in"));
}

TEST_CASE("an empty path is refused, never taken for the option's default", "[store_refusals]") {
  ScratchDirectory dir("store-refusals-empty");
  const fs::path sweep = write_sweep(dir.path() / "sweep.yaml", small_sweep());
  const std::string variant = fmt::format("--variants '{}'", kOneVariant);
  for (const auto& [command, option] : std::vector<std::pair<std::string, std::string>>{
           {fmt::format("report --from '{}' --out ''", sweep.string()), "--out"},
           {fmt::format("merge --out '' '{}'", sweep.string()), "--out"},
           {fmt::format("verify --cpu --journal '' {}", variant), "--journal"},
           {fmt::format("verify --cpu --cache-dir '' {}", variant), "--cache-dir"}}) {
    const CliResult r = run_toy_cli(command);
    INFO(command << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.rfind(option + ": must name a file or folder, not ''\n", 0) == 0);
  }
  // The default of report --out is the sweep's own folder: nothing was written there.
  CHECK_FALSE(fs::exists(dir.path() / "summary.md"));
}

TEST_CASE("a cache or journal the run cannot write, and a journal that is a folder, exit 2 with the system's reason",
          "[store_refusals]") {
  ScratchDirectory dir("store-refusals-unwritable");
  const std::string verify = fmt::format("verify --cpu --rows 1 --shapes '{}' --variants '{}'",
                                         one_small_shape(dir.path()).string(), kOneVariant);
  const fs::path file = dir.path() / "a-file";
  write_file(file, "");

  const fs::path folder = dir.path() / "journal-folder";
  fs::create_directories(folder);
  check_refused(run_toy_cli(fmt::format("{} --journal '{}'", verify, folder.string())),
                folder.string() + ": is a folder; the journal is a file (--journal names the file)");
  check_refused(run_toy_cli(fmt::format("{} --journal '{}'", verify, (file / "v.journal").string())),
                fmt::format("{}: cannot create the journal's folder {}: {}", (file / "v.journal").string(),
                            file.string(), std::strerror(ENOTDIR)));
  check_refused(
      run_toy_cli(fmt::format("{} --cache-dir '{}'", verify, (file / "cache").string())),
      fmt::format("{}: cannot create the compile cache: {}", (file / "cache").string(), std::strerror(ENOTDIR)));

  // A folder no one may create a file in, root included: the system's own reason, whatever it is here.
  const fs::path closed = "/proc";
  const int probe = ::open((closed / "exactune-probe").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  const int reason = errno;
  REQUIRE(probe < 0);
  check_refused(run_toy_cli(fmt::format("{} --cache-dir '{}'", verify, closed.string())),
                fmt::format("{}: cannot write to the compile cache: {}", closed.string(), std::strerror(reason)));
  check_refused(run_toy_cli(fmt::format("{} --journal '{}'", verify, (closed / "v.journal").string())),
                fmt::format("{}: cannot open the journal: {}", (closed / "v.journal").string(), std::strerror(reason)));
}

TEST_CASE("verify --cpu --rows has a bound, said in --help and refused before anything is allocated",
          "[store_refusals]") {
  ScratchDirectory dir("store-refusals-rows");
  // Two billion rows of 64: what --rows 2000000000 would have allocated whole on the CPU.
  const fs::path shapes = dir.path() / "shapes.yaml";
  write_file(shapes, "shapes:\n  - {name: huge, model: test, rows: 2000000000, length: 64}\n");
  // Refused as the command line is read: past the bound, the run would stop at the first thing it checks after
  // reading it (no such variant, no heuristics.yaml), in another message.
  for (const std::string& command :
       {fmt::format("verify --variants no-such-variant --journal '{}'", (dir.path() / "v.journal").string()),
        fmt::format("verify-defaults --reports '{}'", (dir.path() / "no-reports").string())}) {
    const CliResult r =
        run_toy_cli(fmt::format("{} --cpu --rows {} --shapes '{}'", command, kMaxCpuRows + 1, shapes.string()));
    INFO(command << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.rfind(fmt::format("--rows: {} is too large: at most {}\n", kMaxCpuRows + 1, kMaxCpuRows), 0) == 0);
  }
  CHECK(
      contains(run_toy_cli("verify --help").output, fmt::format("rows of each shape to run, at most {}", kMaxCpuRows)));
  const Shape huge = parse_shapes(family(), read_file(shapes), "shapes.yaml").shapes.front();
  CHECK(refusal([&] { first_rows(family(), huge, kMaxCpuRows + 1); }) ==
        fmt::format("--rows {}: must be from 1 to {}", kMaxCpuRows + 1, kMaxCpuRows));
  CHECK(first_rows(family(), huge, kMaxCpuRows).rows() == kMaxCpuRows);
}
