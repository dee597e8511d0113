// sweep.yaml: what is written reads back the same, to the last bit of every
// double, a file of the older format reads with its figures where they
// belong, and a damaged file is refused with its line. The shapes and
// variants are the toy family's (tests/toy_family).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <exactune/error.hpp>
#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

#include "catch.hpp"
#include "store/sweep_file.hpp"
#include "toy_family/toy_family.hpp"

using namespace exactune;

namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

Timing timing(double median, double min, double max, int samples) { return {median, min, max, samples}; }

// Values chosen to trip a writer up: doubles with no short decimal form,
// integers past 32 bits, strings a YAML reader would take for numbers, bools
// or syntax.
SweepResults awkward_results() {
  SweepResults r;
  r.device = {"NVIDIA H200", "nvidia-h200", "sm_90", 132, 62914560, 3201000, 5120, 13000, "13.0"};
  r.family = "toy_double";
  r.reference_recipe = "toy-1-with-a-long-name-v4x128";
  r.created = "2026-11-30T01:02:03Z";
  r.wall_s = 123.4;
  r.timing = {"CUDA graph cycling through K copies: yes",
              "CUDA graph of 20 launches, replayed; events around each replay",
              "L2 flushed: memset of 2x L2 before each launch",
              7,
              0.05,
              2};

  ShapeResult wide;
  wide.shape = exactune_test::toy_shape("wide-2048", 2048, 2240, 1e-6);
  wide.shape.model = "Toy 2048";
  wide.bytes_moved = 18350080;
  wide.copy_rotated = timing(4.0, 3.9, 4.1, 7);
  wide.copy_l2_resident = timing(3.61, 3.6, 3.7, 7);
  wide.copy_cold = timing(1.0 / 3.0, 0.1, 0.30000000000000004, 7);
  wide.reference_chain_l2_resident = timing(21.0, 20.5, 22.25, 7);
  wide.rotation = Rotation{7, 7 * std::int64_t{18350080}};
  wide.run_to_run_noise = {{TimingRegime::rotated, 0.1 + 0.2, 3, 3}, {TimingRegime::cold, 0.0125, 3, 2}};
  VariantResult fast;
  // Variants of the family's space at length 2240: the reader refuses any other.
  fast.variant = "t32_v4_right";
  fast.params = {{"threads", "32"}, {"vector", "4"}, {"result", "right"}};
  fast.registers = 40;
  fast.exact = true;
  fast.cases_passed = fast.cases_total = 8;
  fast.rotated = timing(12.0, 11.5, 12.5, 7);
  fast.l2_resident = timing(10.1, 10.0, 10.3, 7);
  fast.cold = timing(14.2, 14.0, 1e21, 5);
  VariantResult wrong;
  wrong.variant = "t128_v8_planted_wrong";
  wrong.params = {{"threads", "128"}, {"vector", "8"}, {"result", "planted_wrong"}};
  wrong.registers = 255;
  wrong.spill_bytes = 96;
  wrong.cases_passed = 3;
  wrong.cases_total = 8;
  wrong.failure_kind = "incorrect";
  wrong.failure =
      "uniform: 5 of 4587520 elements differ; first at row 400, column 1551: \"0x3f80\" vs "
      "0x3f81 # not a comment\n\tsecond line \\ backslash, caf\xc3\xa9";
  wide.variants = {fast, wrong};

  ShapeResult empty;  // no timings, no variants
  empty.shape = exactune_test::toy_shape("tiny", 1, 4, 0.1);
  empty.shape.model = "yes";
  r.shapes = {wide, empty};
  return r;
}

void check_same(const std::optional<Timing>& a, const std::optional<Timing>& b) {
  REQUIRE(a.has_value() == b.has_value());
  if (!a) return;
  CHECK(a->median_us == b->median_us);
  CHECK(a->min_us == b->min_us);
  CHECK(a->max_us == b->max_us);
  CHECK(a->samples == b->samples);
  CHECK(a->samples_us == b->samples_us);
}

void check_same(const VariantResult& a, const VariantResult& b) {
  INFO("variant " << a.variant);
  CHECK(a.variant == b.variant);
  REQUIRE(a.params.size() == b.params.size());
  for (std::size_t i = 0; i < a.params.size(); ++i) {
    CHECK(a.params[i].axis == b.params[i].axis);
    CHECK(a.params[i].value == b.params[i].value);
  }
  CHECK(a.registers == b.registers);
  CHECK(a.spill_bytes == b.spill_bytes);
  CHECK(a.exact == b.exact);
  CHECK(a.cases_passed == b.cases_passed);
  CHECK(a.cases_total == b.cases_total);
  CHECK(a.failure_kind == b.failure_kind);
  CHECK(a.failure == b.failure);
  for (TimingRegime r : kTimingRegimes) check_same(a.timing(r), b.timing(r));
}

void check_same(const ShapeResult& a, const ShapeResult& b) {
  INFO("shape " << a.shape.name);
  CHECK(a.shape.name == b.shape.name);
  CHECK(a.shape.model == b.shape.model);
  REQUIRE(a.shape.parameters.size() == b.shape.parameters.size());
  for (std::size_t i = 0; i < a.shape.parameters.size(); ++i) {
    CHECK(a.shape.parameters[i].name == b.shape.parameters[i].name);
    CHECK(a.shape.parameters[i].value == b.shape.parameters[i].value);
    CHECK(a.shape.parameters[i].integer == b.shape.parameters[i].integer);
  }
  CHECK(a.shape.size == b.shape.size);
  CHECK(a.shape.row_count == b.shape.row_count);
  CHECK(a.bytes_moved == b.bytes_moved);
  for (TimingRegime r : kTimingRegimes) {
    check_same(a.copy(r), b.copy(r));
    check_same(a.reference_chain(r), b.reference_chain(r));
  }
  REQUIRE(a.rotation.has_value() == b.rotation.has_value());
  if (a.rotation) {
    CHECK(a.rotation->copies == b.rotation->copies);
    CHECK(a.rotation->working_set_bytes == b.rotation->working_set_bytes);
  }
  CHECK(a.sm_clock == b.sm_clock);
  REQUIRE(a.run_to_run_noise.size() == b.run_to_run_noise.size());
  for (std::size_t i = 0; i < a.run_to_run_noise.size(); ++i) {
    CHECK(a.run_to_run_noise[i].regime == b.run_to_run_noise[i].regime);
    CHECK(a.run_to_run_noise[i].noise == b.run_to_run_noise[i].noise);
    CHECK(a.run_to_run_noise[i].passes == b.run_to_run_noise[i].passes);
    CHECK(a.run_to_run_noise[i].variants == b.run_to_run_noise[i].variants);
  }
  REQUIRE(a.variants.size() == b.variants.size());
  for (std::size_t i = 0; i < a.variants.size(); ++i) check_same(a.variants[i], b.variants[i]);
}

void check_same(const SweepResults& a, const SweepResults& b) {
  CHECK(a.device.name == b.device.name);
  CHECK(a.device.slug == b.device.slug);
  CHECK(a.device.arch == b.device.arch);
  CHECK(a.device.sm_count == b.device.sm_count);
  CHECK(a.device.l2_bytes == b.device.l2_bytes);
  CHECK(a.device.memory_clock_khz == b.device.memory_clock_khz);
  CHECK(a.device.memory_bus_bits == b.device.memory_bus_bits);
  CHECK(a.device.driver_version == b.device.driver_version);
  CHECK(a.device.nvrtc_version == b.device.nvrtc_version);
  CHECK(a.family == b.family);
  CHECK(a.reference_recipe == b.reference_recipe);
  CHECK(a.created == b.created);
  CHECK(a.wall_s == b.wall_s);
  CHECK(a.timing.rotated == b.timing.rotated);
  CHECK(a.timing.l2_resident == b.timing.l2_resident);
  CHECK(a.timing.cold == b.timing.cold);
  CHECK(a.timing.repetitions == b.timing.repetitions);
  CHECK(a.timing.max_spread == b.timing.max_spread);
  CHECK(a.timing.noise_passes == b.timing.noise_passes);
  REQUIRE(a.shapes.size() == b.shapes.size());
  for (std::size_t i = 0; i < a.shapes.size(); ++i) check_same(a.shapes[i], b.shapes[i]);
}

// A small valid file of format 1 (no rotated figures; its hot figures were
// L2-resident, its reference chain called eager); tests damage one line of
// it. Line numbers matter.
const std::string kValid =
    "exactune_sweep: 1\n"                  // 1
    "family: toy_double\n"                 // 2
    "reference_recipe: r\n"                // 3
    "created: \"2026-11-30T01:02:03Z\"\n"  // 4
    "wall_s: 1.5\n"                        // 5
    "gpu: {name: G, slug: g, arch: sm_90, sm_count: 1, l2_bytes: 2, memory_clock_khz: 3, memory_bus_bits: 4, "
    "driver_version: 5, nvrtc_version: \"13.0\"}\n"                  // 6
    "timing: {hot: h, cold: c, repetitions: 7, max_spread: 0.05}\n"  // 7
    "shapes:\n"                                                      // 8
    "  - name: s\n"                                                  // 9
    "    model: m\n"                                                 // 10
    "    rows: 2\n"                                                  // 11
    "    length: 64\n"                                               // 12
    "    scale: 1.0e-06\n"                                           // 13
    "    bytes_moved: 1024\n"                                        // 14
    "    copy_us: {median: 2.0, min: 1.0, max: 3.0, samples: 7}\n"   // 15
    "    variants:\n"                                                // 16
    "      - variant: v\n"                                           // 17
    "        params: {threads: \"32\"}\n"                            // 18
    "        registers: 40\n"                                        // 19
    "        spill_bytes: 0\n"                                       // 20
    "        exact: true\n"                                          // 21
    "        cases: \"8/8\"\n"                                       // 22
    "        median_us: 4.0\n"                                       // 23
    "        min_us: 3.9\n"                                          // 24
    "        max_us: 4.1\n"                                          // 25
    "        samples: 7\n"                                           // 26
    "        copy_ratio: 2.0\n";                                     // 27

// kValid with line `line` (1-based) replaced by `text` (nothing: removed).
std::string with_line(int line, const std::string& text) {
  std::string out;
  std::size_t start = 0;
  for (int n = 1; start < kValid.size(); ++n) {
    const std::size_t end = kValid.find('\n', start) + 1;
    if (n != line) {
      out += kValid.substr(start, end - start);
    } else if (!text.empty()) {
      out += text + "\n";
    }
    start = end;
  }
  return out;
}

std::string error_for(const std::string& yaml) {
  try {
    parse_sweep_yaml(yaml, "t.yaml");
  } catch (const exactune::error& e) {
    return e.what();
  }
  FAIL("parsed without an error:\n" << yaml);
  return {};
}

// Samples with no short decimal form: each must read back to the same bits.
std::vector<double> awkward_samples(double median, int count) {
  std::vector<double> samples;
  for (int i = 0; i < count; ++i) samples.push_back(median * (1 + (i - count / 2) / 3.0 * 1e-3) + 1e-13 * i);
  return samples;
}

Timing sampled(double median, int count) {
  const std::vector<double> samples = awkward_samples(median, count);
  Timing t{median, *std::min_element(samples.begin(), samples.end()), *std::max_element(samples.begin(), samples.end()),
           count};
  t.samples_us = samples;
  return t;
}

// awkward_results() with raw samples on every figure: shape `wide` holds ten
// exact variants, the fastest first in the rotated regime and the slowest
// first in the L2-resident one, and cold figures on three of them.
SweepResults sampled_results() {
  SweepResults r = awkward_results();
  ShapeResult& wide = r.shapes.front();
  wide.copy_rotated = sampled(4.0, 7);
  wide.copy_cold = sampled(1.0 / 3.0, 70);
  wide.reference_chain_l2_resident = sampled(21.0, 3);
  const VariantResult exact = wide.variants.front();
  wide.variants.clear();
  int rank = 0;
  for (const char* threads : {"32", "64", "128", "256", "512"}) {
    for (const char* vector : {"4", "8"}) {
      VariantResult v = exact;
      v.variant = fmt::format("t{}_v{}_right", threads, vector);
      v.params = {{"threads", threads}, {"vector", vector}, {"result", "right"}};
      v.rotated = sampled(10.0 + rank, 70);
      v.l2_resident = sampled(30.0 - rank, 7);
      v.cold = rank % 4 == 0 ? std::optional<Timing>(sampled(50.0 + rank, 5)) : std::nullopt;
      wide.variants.push_back(v);
      ++rank;
    }
  }
  return r;
}

// The line (from 1) where `part` first occurs in `text`.
int line_of(const std::string& text, std::string_view part) {
  const std::size_t at = text.find(part);
  REQUIRE(at != std::string::npos);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

}  // namespace

TEST_CASE("a sweep written and read back is the same, to the bit", "[sweep_file]") {
  const SweepResults original = awkward_results();
  const std::string text = to_sweep_yaml(original);
  INFO(text);
  const SweepResults read = parse_sweep_yaml(text, "roundtrip.yaml");
  check_same(original, read);
  CHECK(to_sweep_yaml(read) == text);
}

TEST_CASE("the written file reads well and keeps to YAML every reader agrees on", "[sweep_file]") {
  const std::string text = to_sweep_yaml(awkward_results());
  CHECK(text.rfind("# exactune sweep results: measured by exactune sweep on NVIDIA H200; input to heuristics.yaml "
                   "and the gate.\n",
                   0) == 0);
  CHECK(contains(text, "\nexactune_sweep: 3\n"));
  CHECK(contains(text, "    rotation: {copies: 7, working_set_bytes: 128450560}\n"));
  CHECK(contains(text, "    copy_rotated_us: {median: 4.0, min: 3.9, max: 4.1, samples: 7}\n"));
  CHECK(contains(text, "    reference_chain_l2_resident_us: {median: 21.0, min: 20.5, max: 22.25, samples: 7}\n"));
  CHECK(contains(text,
                 "    run_to_run_noise: {rotated: {noise: 0.30000000000000004, passes: 3, variants: 3}, cold: "
                 "{noise: 0.0125, passes: 3, variants: 2}}\n"));
  CHECK(contains(text, "        rotated_median_us: 12.0\n"));
  CHECK(contains(text, "        l2_resident_median_us: 10.1\n"));
  CHECK(contains(text, "    scale: 1.0e-06\n"));  // a '.' in every double, for YAML 1.1 readers
  // The parameters in the family's order, between the model and bytes_moved.
  CHECK(contains(text,
                 "    model: Toy 2048\n    rows: 2048\n    length: 2240\n    scale: 1.0e-06\n"
                 "    bytes_moved: 18350080\n"));
  CHECK(contains(text, "        params: {threads: \"32\", vector: \"4\", result: right}\n"));
  CHECK(contains(text, "    model: \"yes\"\n"));  // not a bool
  CHECK(contains(text, "        copy_ratios: {rotated: 3.000, l2_resident: 2.798, cold: 42.600}\n"));
  CHECK(contains(text, "        cold_samples: 5\n"));
  CHECK(contains(text, "    variants: []\n"));
  CHECK(contains(text,
                 "    copy_cold_us: {median: 0.3333333333333333, min: 0.1, max: 0.30000000000000004, samples: 7}\n"));
  CHECK_FALSE(contains(text, "reference_chain_cold_us"));  // absent when not measured
}

TEST_CASE("a shape's SM clock record is written as format 6 and read back; a sweep without one keeps format 3",
          "[sweep_file]") {
  SweepResults r = awkward_results();
  CHECK(contains(to_sweep_yaml(r), "\nexactune_sweep: 3\n"));
  r.shapes.front().sm_clock = SmClockRecord{1980, 1410, 1980, 12, {"copy cold", "t32_v4_right rotated"}};
  const std::string text = to_sweep_yaml(r);
  INFO(text);
  CHECK(contains(text, "\nexactune_sweep: 6\n"));
  CHECK(contains(text,
                 "    sm_clock: {default_mhz: 1980, min_mhz: 1410, max_mhz: 1980, figures: 12, throttled: [copy cold, "
                 "t32_v4_right rotated]}\n"));
  const SweepResults read = parse_sweep_yaml(text, "clock.yaml");
  check_same(r, read);
  CHECK(to_sweep_yaml(read) == text);
  // More throttled figures than figures read is a damaged record.
  std::string damaged = text;
  const std::string twelve = "figures: 12,";
  damaged.replace(damaged.find(twelve), twelve.size(), "figures: 1,");
  CHECK_THROWS_WITH(parse_sweep_yaml(damaged, "clock.yaml"), Catch::Contains("2 figures throttled of 1 read"));
}

TEST_CASE("a figure's SM clock below 75% of the default is flagged as throttled, none without a default",
          "[sweep_file]") {
  ShapeResult s;
  s.note_sm_clock("copy rotated", 1980, 1980);
  s.note_sm_clock("copy cold", 1485, 1980);  // exactly 75%: not throttled
  s.note_sm_clock("v cold", 1484, 1980);
  REQUIRE(s.sm_clock);
  CHECK(*s.sm_clock == SmClockRecord{1980, 1484, 1980, 3, {"v cold"}});
  ShapeResult unknown;
  unknown.note_sm_clock("copy rotated", 300, std::nullopt);
  REQUIRE(unknown.sm_clock);
  CHECK(unknown.sm_clock->throttled.empty());
  CHECK(unknown.sm_clock->default_mhz == 0);
}

TEST_CASE("find returns the record by name, or nullptr", "[sweep_file]") {
  const SweepResults r = awkward_results();
  REQUIRE(r.find("tiny") != nullptr);
  CHECK(r.find("tiny")->shape.size == 4);
  CHECK(r.find("nope") == nullptr);
  const ShapeResult& wide = *r.find("wide-2048");
  REQUIRE(wide.find("t128_v8_planted_wrong") != nullptr);
  CHECK(wide.find("t128_v8_planted_wrong")->registers == 255);
  CHECK(wide.find("t32") == nullptr);
}

TEST_CASE("a file of format 1 parses: its hot figures are L2-resident, its eager chain the reference chain",
          "[sweep_file]") {
  const SweepResults r = parse_sweep_yaml(kValid, "t.yaml");
  REQUIRE(r.shapes.size() == 1);
  // The family derives the size and rows from the parameters.
  CHECK(r.shapes[0].shape.size == 64);
  CHECK(r.shapes[0].shape.rows() == 2);
  CHECK(r.shapes[0].shape.describe_parameters() == "rows=2, length=64, scale=1.0e-06");
  // A parameter with a default may be left out.
  CHECK(parse_sweep_yaml(with_line(13, ""), "t.yaml").shapes[0].shape.number("scale") == 2.0);
  const VariantResult& v = r.shapes[0].variants.at(0);
  CHECK(v.exact);
  CHECK(v.cases_passed == 8);
  REQUIRE(v.l2_resident);
  CHECK(v.l2_resident->median_us == 4.0);
  CHECK_FALSE(v.rotated);
  CHECK_FALSE(v.cold);
  REQUIRE(r.shapes[0].copy_l2_resident);
  CHECK(r.shapes[0].copy_l2_resident->median_us == 2.0);
  CHECK_FALSE(r.shapes[0].copy_rotated);
  CHECK_FALSE(r.shapes[0].rotation);
  CHECK(r.timing.l2_resident == "h");
  CHECK(r.timing.rotated.empty());
  CHECK(r.device.nvrtc_version == "13.0");
  // Written again, it is format 3, the same figures under their regime's names.
  const std::string again = to_sweep_yaml(r);
  CHECK(contains(again, "\nexactune_sweep: 3\n"));
  CHECK(contains(again, "    copy_l2_resident_us: {median: 2.0, min: 1.0, max: 3.0, samples: 7}\n"));
  CHECK(contains(again, "        l2_resident_median_us: 4.0\n"));
  const SweepResults eager =
      parse_sweep_yaml(with_line(15, "    eager_us: {median: 9.0, min: 9.0, max: 9.0, samples: 7}"), "t.yaml");
  REQUIRE(eager.shapes[0].reference_chain_l2_resident);
  CHECK(eager.shapes[0].reference_chain_l2_resident->median_us == 9.0);
}

TEST_CASE("a damaged sweep file is refused with its line", "[sweep_file]") {
  struct Damage {
    int line;
    std::string text;
    std::string_view expected;
  };
  const Damage cases[] = {
      {1, "exactune_sweep: 7", "t.yaml:1: exactune_sweep: 7 is a format this exactune does not read (it reads 1 to 6)"},
      {1, "exactune_sweep: 2", "t.yaml:7: unknown key 'hot' in timing"},  // format 2 has other keys
      {3, "", "t.yaml:1: the top level is missing key 'reference_recipe'"},
      {5, "wall_s: fast", "t.yaml:5: wall_s must be a number, got 'fast'"},
      {11, "    rows: \"2\"", "t.yaml:11: rows must be an integer, got the quoted string \"2\""},
      {11, "    rows: 1.5", "t.yaml:11: rows must be an integer, got '1.5'"},
      {11, "    rows:", "t.yaml:11: rows has no value"},
      {12, "    lenght: 64", "t.yaml:12: unknown key 'lenght' in a shape"},
      {12, "", "t.yaml:9: a shape is missing key 'length'"},
      {12, "    length: 66", "t.yaml:12: length 66 is not a multiple of 4"},
      {13, "    scale: 0.0", "t.yaml:13: scale must be > 0"},
      {13, "    stride: 64", "t.yaml:13: unknown key 'stride' in a shape"},
      {2, "family: rms_norm", "t.yaml:2: family: no kernel family named 'rms_norm'"},
      {15, "    copy_us: {median: 2.0, min: 1.0, max: 3.0}", "t.yaml:15: copy_us is missing key 'samples'"},
      {17, "      - variant: v\n        variant: w", "t.yaml:18: key 'variant' appears twice in a variant"},
      {18, "        params: [4]", "t.yaml:18: params must be a map, got a list"},
      {21, "        exact: yes", "t.yaml:21: exact must be true or false, got 'yes'"},
      {22, "        cases: \"9/8\"", "t.yaml:22: cases must be \"passed/total\""},
      {23, "", "t.yaml:17: a variant is missing key 'median_us'"},
      {26, "        sample: 7", "t.yaml:26: unknown key 'sample' in a variant"},
      {27,
       "        copy_ratio: 2.0\n      - variant: v\n        params: {}\n        registers: 1\n        spill_bytes: 0\n"
       "        exact: false\n        cases: \"0/8\"",
       "t.yaml:28: in shape 's', variant 'v' appears twice"},
      {9, "  - 5\n  - name: s", "t.yaml:9: shapes #1 must be a map, got '5'"},
      {1, "exactune_sweep: 7\nextra: 1", "t.yaml:1: exactune_sweep: 7 is a format"},
      {7, "timing: {hot: h, cold: c, repetitions: 7, max_spread: 0.05", "t.yaml:"},
  };
  for (const Damage& d : cases) {
    const std::string yaml = with_line(d.line, d.text);
    const std::string message = error_for(yaml);
    INFO(yaml << "\n=> " << message);
    CHECK(message.rfind(std::string(d.expected), 0) == 0);
  }
  CHECK(error_for("") == "t.yaml:1: the file is empty; expected a map that starts with 'exactune_sweep: 6'");
}

TEST_CASE("raw samples are written for the figures a choice rests on and read back to the bit", "[sweep_file]") {
  const SweepResults original = sampled_results();
  const std::string text = to_sweep_yaml(original);
  INFO(text);
  CHECK(contains(text, "\nexactune_sweep: 5\n"));
  const SweepResults read = parse_sweep_yaml(text, "samples.yaml");
  const ShapeResult& wide = read.shapes.front();
  // The shape's own figures keep every sample, bit for bit.
  for (TimingRegime r : kTimingRegimes) {
    check_same(wide.copy(r), original.shapes.front().copy(r));
    check_same(wide.reference_chain(r), original.shapes.front().reference_chain(r));
  }
  REQUIRE(wide.copy_cold);
  CHECK(wide.copy_cold->samples_us.size() == 70);
  // Per regime, the 8 fastest exact variants keep theirs; the rest their summary only.
  REQUIRE(wide.variants.size() == 10);
  for (std::size_t i = 0; i < wide.variants.size(); ++i) {
    const VariantResult& got = wide.variants[i];
    const VariantResult& sent = original.shapes.front().variants[i];
    INFO(got.variant);
    CHECK(got.rotated->samples_us == (i < 8 ? sent.rotated->samples_us : std::vector<double>{}));
    CHECK(got.l2_resident->samples_us == (i >= 2 ? sent.l2_resident->samples_us : std::vector<double>{}));
    CHECK(got.cold.has_value() == sent.cold.has_value());
    if (got.cold) CHECK(got.cold->samples_us == sent.cold->samples_us);  // 3 cold figures: all among the 8
    for (TimingRegime r : kTimingRegimes) {
      if (!got.timing(r)) continue;
      CHECK(got.timing(r)->median_us == sent.timing(r)->median_us);
      CHECK(got.timing(r)->min_us == sent.timing(r)->min_us);
      CHECK(got.timing(r)->max_us == sent.timing(r)->max_us);
      CHECK(got.timing(r)->samples == sent.timing(r)->samples);
    }
  }
  // Written again, the same bytes: what was summary-only stays so.
  CHECK(to_sweep_yaml(read) == text);
  // A sweep that kept no samples is written in the format before them.
  CHECK(contains(to_sweep_yaml(awkward_results()), "\nexactune_sweep: 3\n"));
}

TEST_CASE("a samples list that is not the figure's samples is refused with its line", "[sweep_file]") {
  const std::string text = to_sweep_yaml(sampled_results());
  const std::string list = "samples_us: [";
  const int line = line_of(text, list);  // copy_rotated_us, 7 samples
  const std::size_t start = text.find(list) + list.size();
  const std::size_t end = text.find(']', start);
  const auto with_list = [&](const std::string& items) { return text.substr(0, start) + items + text.substr(end); };
  const std::string at = fmt::format("t.yaml:{}: ", line);
  CHECK(error_for(with_list("1.0, 2.0")) == at + "samples_us holds 2 samples, but samples says 7");
  CHECK(error_for(with_list("")) == at + "samples_us holds 0 samples, but samples says 7");
  CHECK(error_for(with_list("1.0, 2.0, 3.0, 4.0, 5.0, 6.0, -7.0")) ==
        at + "samples_us #7 must be a number > 0, got -7.0");
  CHECK(error_for(with_list("1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.0")) ==
        at + "samples_us #7 must be a number > 0, got 0.0");
  CHECK(error_for(with_list("1.0, 2.0, 3.0, 4.0, 5.0, 6.0, .nan"))
            .rfind(at + "samples_us #7 must be a finite number", 0) == 0);
  CHECK(error_for(with_list("1.0, 2.0, 3.0, 4.0, 5.0, 6.0, .inf"))
            .rfind(at + "samples_us #7 must be a finite number", 0) == 0);
  CHECK(error_for(with_list("1.0, 2.0, 3.0, 4.0, 5.0, 6.0, fast")).rfind(at + "samples_us #7 must be a number", 0) ==
        0);
  // Not a list at all.
  std::string scalar = text;
  scalar.replace(text.find(list), end + 1 - text.find(list), "samples_us: 4.0");
  CHECK(error_for(scalar).rfind(at + "samples_us must be a list", 0) == 0);
  // A variant's flat list is checked the same way, at its own line.
  const std::string flat = "rotated_samples_us: [";
  const std::size_t flat_start = text.find(flat) + flat.size();
  const std::string short_flat = text.substr(0, flat_start) + "1.0" + text.substr(text.find(']', flat_start));
  CHECK(error_for(short_flat) ==
        fmt::format("t.yaml:{}: rotated_samples_us holds 1 samples, but rotated_samples says 70", line_of(text, flat)));
  // Format 4 has no samples: the same file under its version is refused.
  std::string older = text;
  older.replace(older.find("exactune_sweep: 5"), 17, "exactune_sweep: 4");
  CHECK(error_for(older).find("unknown key 'samples_us'") != std::string::npos);
}

TEST_CASE("write_sweep_file replaces the file whole, read_sweep_file names a file it cannot read", "[sweep_file]") {
  const auto dir = std::filesystem::temp_directory_path() / "exactune_test_sweep_file";
  std::filesystem::remove_all(dir);
  const auto path = dir / "nvidia-h200" / "sweep.yaml";
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << "old contents";
  const SweepResults original = awkward_results();
  write_sweep_file(original, path);
  check_same(original, read_sweep_file(path));
  // Only the file itself is left behind: the temporary was renamed over it.
  CHECK(std::distance(std::filesystem::directory_iterator(path.parent_path()), {}) == 1);

  const auto missing = dir / "missing.yaml";
  try {
    read_sweep_file(missing);
    FAIL("read a missing file");
  } catch (const exactune::error& e) {
    CHECK(contains(e.what(), missing.string() + ": cannot read the sweep file"));
  }
  std::filesystem::remove_all(dir);
}
