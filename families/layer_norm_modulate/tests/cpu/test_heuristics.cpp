// The chooser on recorded timings, heuristics.yaml, the generated header and
// JSON (compiled and run as a consumer would), and summary.md with its heatmaps.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "choose/chooser.hpp"
#include "heuristics_fixture.hpp"
#include "report/heatmap_svg.hpp"
#include "report/heuristics_emitter.hpp"
#include "report/summary_report.hpp"
#include "store/chooser_policy.hpp"
#include "store/family_tables.hpp"
#include "store/framework_times.hpp"
#include "store/heuristics.hpp"
#include "store/heuristics_file.hpp"
#include "store/targets.hpp"

using namespace exactune;
using namespace heuristics_fixture;
namespace fs = std::filesystem;

namespace {

std::string parse_error(const std::string& yaml) {
  return error_of([&] { parse_heuristics_yaml(yaml, "h.yaml"); });
}

std::string spelled(const std::vector<Param>& params) {
  std::string text;
  for (const Param& p : params) text += fmt::format("{}={} ", p.axis, p.value);
  return text;
}

// Margins are rounded to 1e-4 when chosen.
bool near(std::optional<double> margin, double expected) { return margin && std::abs(*margin - expected) <= 0.5e-4; }

// The yaml with the first occurrence of `from` replaced, and the 1-based line it is on.
std::pair<std::string, int> edited(std::string yaml, const std::string& from, const std::string& to) {
  const std::size_t at = yaml.find(from);
  REQUIRE(at != std::string::npos);
  const int line = 1 + static_cast<int>(std::count(yaml.begin(), yaml.begin() + static_cast<long>(at), '\n'));
  return {yaml.replace(at, from.size(), to), line};
}

}  // namespace

TEST_CASE("the chooser buckets rows and prefers one configuration within noise", "[heuristics]") {
  const Heuristics h = choose_heuristics(recorded_sweep());
  CHECK(h.family == "layer_norm_modulate");
  CHECK(h.device.slug == "nvidia-h200");
  REQUIRE(h.device.choices.size() == 5);
  const auto& c = h.device.choices;

  SECTION("buckets end at the geometric midpoints of the timed row counts; the last is unbounded") {
    // floor(sqrt(37 * 2048)) = 275, sqrt(2048 * 8192) = 4096; the untimed 4000-row shape makes no bucket.
    CHECK(c[0].size == 2240);
    CHECK(c[0].max_rows == 275);
    CHECK(c[1].max_rows == 4096);
    CHECK_FALSE(c[2].max_rows.has_value());
    CHECK(c[3].size == 3072);
    CHECK(c[3].max_rows == 4344);  // floor(sqrt(4096 * 4608)) = floor(4344.46)
    CHECK_FALSE(c[4].max_rows.has_value());
    CHECK(h.device.choice_for(2240, 275) == &c[0]);
    CHECK(h.device.choice_for(2240, 276) == &c[1]);
    CHECK(h.device.choice_for(2240, 1 << 30) == &c[2]);
    CHECK(h.device.choice_for(1024, 10) == nullptr);
  }
  SECTION("the shared configuration is kept where it is within noise of the bucket's best") {
    CHECK(c[0].chosen.variant == full(kAten));  // 1% behind the wide variant: within the 2% floor
    CHECK(c[0].shared);
    CHECK(c[0].runner_up == full(kWide));
    CHECK(near(c[0].margin, 5.00 / 5.05 - 1));
    CHECK(*c[0].margin < 0);
    CHECK(c[1].chosen.variant == full(kAten));
    CHECK(c[1].shared);
    CHECK(near(c[1].margin, 0.01));
  }
  SECTION("a bucket takes its own best where the shared configuration is beyond noise") {
    CHECK(c[2].chosen.variant == full(kRegisters));
    CHECK_FALSE(c[2].shared);
    CHECK(c[2].runner_up == full(kAten));
    CHECK(near(c[2].margin, 32.0 / 30.0 - 1));
    CHECK(c[2].median_us == 30.0);
    CHECK(c[2].shape == "big");
    CHECK(spelled(c[2].chosen.params) == spelled(variant(full(kRegisters)).params));
  }
  SECTION("non-exact and untimed variants are never chosen nor runners-up") {
    for (const Choice& choice : c) {
      CHECK(choice.chosen.variant != full(kIncorrect));
      CHECK(choice.chosen.variant != full(kUntimed));
      CHECK(choice.runner_up != full(kIncorrect));
    }
  }
  SECTION("the device default is the configuration chosen most often; ties go to the one timed everywhere") {
    // aten's shape and the wide variant are chosen twice each; aten's was not timed at hidden 3072.
    CHECK(h.device.default_configuration.variant == full(kWide));
    CHECK(h.global_default.variant == full(kAten));
    CHECK(spelled(h.global_default.params) == spelled(variant(full(kAten)).params));
  }
}

TEST_CASE("a large spread widens the noise, so the shared configuration holds", "[heuristics]") {
  SweepResults r = recorded_sweep();
  r.shapes[3].variants[1] = timed(full(kAten), 32.0, 0.08);  // 6.7% behind, but its repetitions spread 8%
  const Heuristics h = choose_heuristics(r);
  CHECK(h.device.choices[2].chosen.variant == full(kAten));
  CHECK(h.device.choices[2].shared);
  ChooserOptions strict;
  strict.min_noise = 0;
  CHECK(choose_heuristics(recorded_sweep(), strict).device.choices[0].chosen.variant == full(kWide));
}

TEST_CASE("a sweep without timings gives nothing to choose from", "[heuristics]") {
  SweepResults r = recorded_sweep();
  for (ShapeResult& s : r.shapes) {
    for (VariantResult& v : s.variants) v.rotated.reset();
  }
  CHECK(contains(error_of([&] { choose_heuristics(r); }), "nothing to choose from"));
}

// The policy decides which regime ranks: a chooser that ranked by one fixed
// figure (the L2-resident one, as before policies) fails here.
TEST_CASE("the chooser ranks by its policy's regime, and heuristics.yaml names the policy", "[heuristics][policy]") {
  SweepResults r = recorded_sweep();
  // At 8192 rows, kRegisters wins hot in L2 (30 us); out of L2 (rotated) and cold, kWide does by far.
  ShapeResult& big = r.shapes[3];
  for (VariantResult& v : big.variants) {
    if (!v.exact) continue;
    const bool wide = v.variant == full(kWide);
    v.rotated = Timing{wide ? 40.0 : 60.0, wide ? 40.0 : 60.0, wide ? 40.0 : 60.0, 20};
    v.cold = Timing{wide ? 50.0 : 80.0, wide ? 50.0 : 80.0, wide ? 50.0 : 80.0, 20};
  }
  big.copy_cold = Timing{30.0, 30.0, 30.0, 20};
  const auto chosen_at_big = [&](ChooserPolicy policy) {
    ChooserOptions options;
    options.policy = policy;
    const Heuristics h = choose_heuristics(r, options);
    CHECK(h.policy == policy);
    const Choice* c = h.device.choice_for(2240, 8192);
    REQUIRE(c != nullptr);
    return *c;
  };
  const Choice rotated = chosen_at_big(ChooserPolicy::rotated);
  CHECK(rotated.chosen.variant == full(kWide));
  CHECK(rotated.median_us == 40.0);
  const Choice cold = chosen_at_big(ChooserPolicy::cold);
  CHECK(cold.chosen.variant == full(kWide));
  CHECK(cold.median_us == 50.0);
  const Choice both = chosen_at_big(ChooserPolicy::both);
  CHECK(both.chosen.variant == full(kWide));
  CHECK(both.median_us == 40.0);  // the rotated median, as the file's comment says
  // The L2-resident figure alone would choose kRegisters; this sweep has rotated figures, so it is refused.
  CHECK(contains(error_of([&] { chosen_at_big(ChooserPolicy::l2_resident); }), "this sweep has rotated figures"));
  for (VariantResult& v : big.variants) v.rotated.reset();
  for (ShapeResult& s : r.shapes) {
    for (VariantResult& v : s.variants) v.rotated.reset();
  }
  CHECK(chosen_at_big(ChooserPolicy::l2_resident).chosen.variant == full(kRegisters));

  SECTION("heuristics.yaml writes the policy, says what it ranks by, and reads it back") {
    ChooserOptions options;
    options.policy = ChooserPolicy::cold;
    const std::string yaml = to_heuristics_yaml(choose_heuristics(r, options));
    CHECK(contains(yaml, "\npolicy: cold\n"));
    CHECK(contains(yaml, "# Policy cold: variants are ranked by the cold median"));
    CHECK(parse_heuristics_yaml(yaml, "h.yaml").policy == ChooserPolicy::cold);
    // A file from before policies was ranked by the L2-resident figure.
    std::string old = yaml;
    old.erase(old.find("policy: cold\n"), std::string("policy: cold\n").size());
    CHECK(parse_heuristics_yaml(old, "h.yaml").policy == ChooserPolicy::l2_resident);
    std::string wrong = yaml;
    wrong.replace(wrong.find("policy: cold"), std::string("policy: cold").size(), "policy: fastest");
    CHECK(contains(error_of([&] { parse_heuristics_yaml(wrong, "h.yaml"); }), "policy 'fastest' is none of"));
  }
  SECTION("the gate checks the policy's regimes, and cold always") {
    CHECK(gated_regimes(ChooserPolicy::rotated) ==
          std::vector<TimingRegime>{TimingRegime::rotated, TimingRegime::cold});
    CHECK(gated_regimes(ChooserPolicy::cold) == std::vector<TimingRegime>{TimingRegime::cold});
    CHECK(gated_regimes(ChooserPolicy::both) == std::vector<TimingRegime>{TimingRegime::rotated, TimingRegime::cold});
    CHECK(gated_regimes(ChooserPolicy::l2_resident) ==
          std::vector<TimingRegime>{TimingRegime::l2_resident, TimingRegime::cold});
  }
}

TEST_CASE("contenders are the fastest exact variants of each timed shape", "[heuristics]") {
  const auto top = contenders(recorded_sweep(), 2);
  REQUIRE(top.size() == 5);  // the untimed shape has none
  CHECK(top[0].first == "edge-37");
  CHECK(top[0].second == std::vector<std::string>{full(kWide), full(kAten)});
  CHECK(top[3].first == "flux-image");
}

TEST_CASE("heuristics.yaml round-trips, and the header and JSON regenerate byte for byte", "[heuristics]") {
  const Heuristics chosen = choose_heuristics(recorded_sweep());
  const std::string yaml = to_heuristics_yaml(chosen);
  INFO(yaml);
  CHECK(yaml.rfind("# exactune heuristics: chosen by exactune from reports/nvidia-h200/layer_norm_modulate/sweep.yaml "
                   "(NVIDIA H200); the header and JSON are generated from this file.\n",
                   0) == 0);
  CHECK(contains(yaml, "# For a GPU without a table: aten's own launch shape"));
  CHECK(contains(yaml, "# Policy rotated: variants are ranked by the rotated hot median"));
  CHECK(contains(yaml, "  choices:\n    - hidden: 2240\n      max_rows: 275\n"));  // the family's size parameter
  CHECK(contains(yaml,
                 "params: {num_warps: \"4\", rows_per_cta: \"1\", tail: predicated, vector_bytes: \"8\", "
                 "pass2: reload"));

  const Heuristics parsed = parse_heuristics_yaml(yaml, "h.yaml");
  CHECK(to_heuristics_yaml(parsed) == yaml);
  REQUIRE(parsed.device.choices.size() == chosen.device.choices.size());
  for (std::size_t i = 0; i < parsed.device.choices.size(); ++i) {
    CHECK(parsed.device.choices[i].median_us == chosen.device.choices[i].median_us);
    CHECK(parsed.device.choices[i].margin == chosen.device.choices[i].margin);
    CHECK(parsed.device.choices[i].max_rows == chosen.device.choices[i].max_rows);
  }
  CHECK(emit_header(parsed) == emit_header(chosen));
  CHECK(emit_json(parsed) == emit_json(chosen));

  const std::string header = emit_header(parsed);
  CHECK(header.rfind("// Generated by exactune emit-header from heuristics.yaml and "
                     "reports/tables/<family>/verified_defaults.yaml; do not edit.\n",
                     0) == 0);
  // A namespace per family, so that the headers of several families can be included together.
  CHECK(contains(header, "\nnamespace exactune_heuristics::layer_norm_modulate {\n"));
  CHECK(contains(header, "}  // namespace exactune_heuristics::layer_norm_modulate\n"));
  CHECK(contains(header,
                 "constexpr LaunchConfig select(const char* device_name, int cc_major, int cc_minor, "
                 "int sm_count, int hidden,\n                              long long rows, int alignment)"));
  CHECK(contains(header, "  if (c.vector_bytes == 16 && (hidden % 8 != 0 || alignment % 16 != 0)) return false;\n"));
  CHECK(contains(header,
                 "  if (fits(c.config_vector_bytes_8, hidden, alignment) && verified(c.config_vector_bytes_8, "
                 "hidden)) return c.config_vector_bytes_8;\n"));
  CHECK(contains(header, "    {\"NVIDIA H200\", 9, 0, 132, 2240, 275, {4, 1, Tail::predicated, 8,"));
  const std::string json = emit_json(parsed);
  CHECK(json.rfind("{\n  \"generated\": \"by exactune emit-header from heuristics.yaml and "
                   "reports/tables/<family>/verified_defaults.yaml; do not edit\",",
                   0) == 0);
  CHECK(contains(json, "\"family\": \"layer_norm_modulate\""));
  CHECK(contains(json, "\"hidden\": 2240,"));
  CHECK(contains(json, "\"max_rows\": null"));
  CHECK(contains(json, "\"fallback\""));
  CHECK(contains(json,
                 "\"default_fallbacks\": [\n        {\n          \"axis\": \"vector_bytes\",\n          \"from\": 16,\n"
                 "          \"to\": 8,\n          \"multiple\": 8,\n"));
}

TEST_CASE("errors in heuristics.yaml name the file and line", "[heuristics]") {
  const std::string yaml = to_heuristics_yaml(choose_heuristics(recorded_sweep()));
  struct Edit {
    const char* from;
    const char* to;
    const char* what;
    int offset = 0;  // the error names the line of `from`, or the one this many lines below it
  };
  const Edit edits[] = {
      {"      shared: true", "      shared: maybe", "shared must be true or false"},
      {"median_us: 5.05", "median_us: fast", "median_us must be a number"},
      {"sm_count: 132", "sm_count: -1", "sm_count must be > 0"},
      {"arch: sm_90", "arch: hopper", "no GPU architecture"},
      {"format_version: 1", "format_version: 7", "reads version 1"},
      {"family: layer_norm_modulate", "family: rms_norm", "family: no kernel family named 'rms_norm'"},
      {"    - hidden: 3072\n", "    - hidden: -3\n", "hidden must be > 0"},
      {"    - hidden: 3072\n", "    - size: 3072\n", "unknown key 'size' in a choice"},
      // The device default's params come first; num_warps: "4" first appears in the first choice.
      {"tail: predicated", "tail: peeled", "params spell variant"},
      {"num_warps: \"4\"", "num_warps: four", "num_warps 'four' is not one of"},
      {"num_warps: \"4\", rows_per_cta: \"1\"", "rows_per_cta: \"1\", num_warps: \"4\"", "in this order"},
      {"      shape: edge-37\n", "      shape: edge-37\n      colour: blue\n", "unknown key 'colour'", 1},
      {"      shape: edge-37\n", "      shape: edge-37\n      shape: again\n", "appears twice", 1},
      {"      max_rows: 4096\n", "      max_rows: 100\n", "does not ascend"},
      {"      median_us: 30.0\n", "      median_us: 30.0\n      max_rows: 9999999\n", "must have no max_rows", 1},
      {"      margin: 0.01\n", "", "runner_up and margin come together", -1},
  };
  for (const Edit& e : edits) {
    const auto [text, line] = edited(yaml, e.from, e.to);
    const std::string message = parse_error(text);
    INFO(e.from << " -> " << e.to << ": " << message);
    CHECK(message.rfind(fmt::format("h.yaml:{}: ", line + e.offset), 0) == 0);
    CHECK(contains(message, e.what));
  }
  CHECK(contains(parse_error("device: [1"), "h.yaml:"));
}

TEST_CASE("the generated header compiles as C++17 and selects through the fallback chain", "[heuristics]") {
  // The H200 of the recorded sweep, an H800 PCIe (sm_90, 114 SMs) and an A100 (sm_80), each with its own
  // configurations (heuristics_fixture.hpp).
  // The defaults verified at the sizes probed below (and the H200's narrowed default not at 1028).
  FamilyTables tables = family_tables(three_gpu_files());
  DefaultsRecord record;
  record.command = "by hand for this test";
  record.configurations = {{full(kWide), {}, {{1024, 1024, 1}, {2240, 2240, 1}}, {}, {}},
                           {full(kWideNarrowed), {}, {{1024, 1024, 1}, {2244, 2244, 1}, {3072, 3072, 1}}, {}, {}},
                           {full(kH800Default), {}, {{1024, 1024, 1}}, {}, {}},
                           {full(kA100DefaultNarrowed), {}, {{2244, 2244, 1}}, {}, {}}};
  tables.defaults_record = record;
  const TempDir dir("header");
  const std::string output =
      compile_and_run(dir.path(), kHeuristicsHeaderFile, emit_header(tables), R"(#include <cstdio>
#include "exactune_heuristics.hpp"
using namespace exactune_heuristics::layer_norm_modulate;
static_assert(select("NVIDIA H200", 9, 0, 132, 2240, 8192, 16).num_warps == 2, "select is usable at compile time");
void show(const char* what, const char* name, int major, int minor, int sms, int hidden, long long rows,
          int alignment = 16) {
  const LaunchConfig c = select(name, major, minor, sms, hidden, rows, alignment);
  if (runs_eager(c)) {
    std::printf("%s eager\n", what);
    return;
  }
  std::printf("%s %s %d %d %d %d %d\n", what, c.variant, c.num_warps, c.rows_per_cta, int(c.tail), c.vector_bytes,
              int(c.pass2));
}
int main() {
  show("bucket-37", "NVIDIA H200", 9, 0, 132, 2240, 37);
  show("bucket-edge", "NVIDIA H200", 9, 0, 132, 2240, 275);
  show("bucket-next", nullptr, 9, 0, 132, 2240, 276);
  show("bucket-last", "", 9, 0, 132, 2240, 1000000);
  show("d3072", "NVIDIA H200", 9, 0, 132, 3072, 4608);
  show("d3072-8-byte-aligned", "NVIDIA H200", 9, 0, 132, 3072, 4608, 8);
  show("untuned-hidden", "NVIDIA H200", 9, 0, 132, 1024, 10);
  show("untuned-8-byte-aligned", "NVIDIA H200", 9, 0, 132, 1024, 10, 8);
  show("untuned-unverified", "NVIDIA H200", 9, 0, 132, 1028, 10);
  show("4-byte-aligned", "NVIDIA H200", 9, 0, 132, 2240, 37, 4);
  show("by-name-over-sms", "NVIDIA H800 PCIe", 9, 0, 132, 2240, 37);
  show("by-sms", "NVIDIA H800", 9, 0, 114, 2240, 37);
  show("by-sms-untuned", nullptr, 9, 0, 114, 1024, 10);
  show("same-arch", "NVIDIA H20", 9, 0, 78, 2240, 37);
  show("same-arch-hidden-4mod8", nullptr, 9, 0, 78, 2244, 37);
  show("other-arch-by-name", "NVIDIA A100-SXM4-80GB", 8, 0, 56, 2240, 37);
  show("other-arch-only", "NVIDIA A30", 8, 0, 56, 2244, 37);
  show("unknown", "NVIDIA T4", 7, 5, 40, 2240, 37);
}
)");
  // The fields of a variant as the probe prints them: num_warps rows_per_cta tail vector_bytes pass2.
  const auto line = [](const std::string& what, const std::string& prefix) {
    const Configuration c = configuration(prefix);
    const auto value = [&](const std::string& axis) {
      for (const Param& p : c.params) {
        if (p.axis == axis) return p.value;
      }
      return std::string("?");
    };
    return fmt::format("{} {} {} {} {} {} {}\n", what, c.variant, value("num_warps"), value("rows_per_cta"),
                       value("tail") == "predicated" ? 0 : 1, value("vector_bytes"),
                       value("pass2") == "reload" ? 0 : 1);
  };
  CHECK(output ==
        line("bucket-37", kAten) + line("bucket-edge", kAten) + line("bucket-next", kAten) +
            line("bucket-last", kRegisters) + line("d3072", kWide) + line("d3072-8-byte-aligned", kWideNarrowed) +
            line("untuned-hidden", kWide) + line("untuned-8-byte-aligned", kWideNarrowed) +
            "untuned-unverified eager\n" + "4-byte-aligned eager\n" + line("by-name-over-sms", kH800Choice) +
            line("by-sms", kH800Choice) + line("by-sms-untuned", kH800Default) +
            // By architecture alone: the first sm_90 device's default (the H200's, by slug), tuned size or not.
            line("same-arch", kWide) + line("same-arch-hidden-4mod8", kWideNarrowed) +
            line("other-arch-by-name", kA100Choice) + line("other-arch-only", kA100DefaultNarrowed) +
            line("unknown", kAten));
}

TEST_CASE("exactune emit-header writes the header and JSON next to the yaml", "[heuristics]") {
  const TempDir dir("cli");
  const Heuristics h = choose_heuristics(recorded_sweep());
  write_text(dir.path() / "heuristics.yaml", to_heuristics_yaml(h));
  const auto [code, output] =
      run_shell(fmt::format("'{}' emit-header --from '{}/heuristics.yaml'", EXACTUNE_CLI, dir.path().string()),
                dir.path() / "cli.log");
  INFO(output);
  CHECK(code == 0);
  CHECK(read_text(dir.path() / kHeuristicsHeaderFile) == emit_header(h));
  CHECK(read_text(dir.path() / kHeuristicsJsonFile) == emit_json(h));

  write_text(dir.path() / "bad.yaml", "format_version: 1\nfamily: rms_norm\n");
  const auto [bad_code, bad_output] = run_shell(
      fmt::format("'{}' emit-header --from '{}/bad.yaml'", EXACTUNE_CLI, dir.path().string()), dir.path() / "bad.log");
  CHECK(bad_code == 2);
  CHECK(contains(bad_output, "bad.yaml:"));
}

TEST_CASE("committed reports: header and JSON are what heuristics.yaml generates", "[heuristics][committed]") {
  // reports/<gpu>/<family>/, of every family this binary links.
  const fs::path reports = fs::path(EXACTUNE_SOURCE_DIR) / "reports";
  int checked = 0;
  if (fs::is_directory(reports)) {
    for (const fs::directory_entry& gpu : fs::directory_iterator(reports)) {
      if (!gpu.is_directory()) continue;
      for (const fs::directory_entry& entry : fs::directory_iterator(gpu.path())) {
        const fs::path yaml = entry.path() / "heuristics.yaml";
        if (!fs::is_regular_file(yaml)) continue;
        INFO(yaml.string() << ": regenerate with `exactune emit-header --from " << yaml.string() << "`");
        FamilyTables tables = family_tables(load_heuristics_file(yaml.string()));
        read_defaults_record(tables, tables_dir_of(yaml));
        CHECK(tables.defaults_record.has_value());
        CHECK(read_text(entry.path() / kHeuristicsHeaderFile) == emit_header(tables));
        CHECK(read_text(entry.path() / kHeuristicsJsonFile) == emit_json(tables));
        ++checked;
      }
    }
  }
  INFO("reports/*/*/heuristics.yaml under " << reports.string());
  CHECK(checked > 0);
}

TEST_CASE("summary.md: per shape the roofline, eager, best exact and chosen variant", "[heuristics][summary]") {
  const SweepResults r = recorded_sweep();
  const std::string md = summary_markdown(r, choose_heuristics(r));
  INFO(md);
  CHECK(md.rfind("# exactune sweep: NVIDIA H200 (sm_90, 132 SMs), CUDA driver 13.0, NVRTC 13.0\n", 0) == 0);
  // The parameters that differ between shapes in the table, the others said once.
  CHECK(contains(md, "Every shape has eps=1.0e-06, modulation_rows=1.\n\n| shape | (batch, tokens, hidden) | rows |"));
  CHECK(contains(md, "for the shape's size (hidden) and row count."));
  CHECK(contains(md, "hidden 2240, big:\n"));
  // Torch eager (n/a: no runtime.json), the reference chain and the copy in
  // every regime, the best exact by the policy, its figure and ratio to the
  // copy per regime, then rotation, noise, the chosen variant.
  CHECK(contains(md, fmt::format("| sana | (2, 1024, 2240) | 2048 | n/a | 40.00 / 40.00 / — | `{0}` | 2.00 / 2.00 / — "
                                 "| 10.00 | 5.00 | 10.00 | 5.00 | — | — | — | — | `{0}` | 3/4 |",
                                 full(kAten))));
  CHECK(contains(md,
                 "Torch eager: the framework's own chain on the same GPU under CUDA-graph replay of the same "
                 "buffers (compare with hot (L2-resident)), n/a: not measured, as no runtime.json"));
  CHECK(contains(md,
                 "| untimed-4000 | (1, 4000, 2240) | 4000 | n/a | 40.00 / 40.00 / — | — | 2.00 / 2.00 / — | — | — "
                 "| — | — | — | — | — | — |"));
  CHECK(contains(md, "## What each axis is worth"));
  CHECK(contains(md, "| shape | num_warps | rows_per_cta |"));
  CHECK(contains(md, fmt::format("- edge-37 `{}`: incorrect: case a1_e1e-06, row 3, column 17", full(kIncorrect))));
  CHECK(contains(md, "\\| more"));  // a '|' in a failure cannot break the list
  CHECK(contains(md, "](heatmap_big.svg)"));
  CHECK(contains(md, "](heatmap_flux-joint.svg)"));
  CHECK(summary_heatmaps(r).size() == 2);
}

// Every figure the issue asks of summary.md, by its column: dropping one fails here.
TEST_CASE("summary.md has every regime's column, the rotation's K and the policy", "[heuristics][summary]") {
  SweepResults r = recorded_sweep();
  ShapeResult& big = r.shapes[3];
  big.rotation = Rotation{4, 4 * std::int64_t{16} << 20};  // 64 MiB: short of twice the 60 MiB L2
  big.copy_cold = Timing{3.0, 3.0, 3.0, 20};
  big.reference_chain_cold = Timing{50.0, 50.0, 50.0, 20};
  for (VariantResult& v : big.variants) {
    if (v.exact) v.cold = Timing{45.0, 45.0, 45.0, 20};
  }
  big.run_to_run_noise = {{TimingRegime::rotated, 0.012, 3, 3}, {TimingRegime::cold, 0.03, 3, 3}};
  const std::string md = summary_markdown(r, choose_heuristics(r));
  INFO(md);
  for (const char* column :
       {"| torch eager µs |", "| reference chain µs (rotated / L2-resident / cold) |", "| best exact |",
        "| copy µs (rotated / L2-resident / cold) |", "| hot (rotated) µs |", "| hot (rotated)/copy |",
        "| hot (L2-resident) µs |", "| hot (L2-resident)/copy |", "| cold µs |", "| cold/copy |", "| rotation K |",
        "| run-to-run noise (rotated / L2-resident / cold) |", "| chosen |"}) {
    CHECK(contains(md, column));
  }
  CHECK(contains(md, "Policy `rotated` (heuristics.yaml): best exact and chosen are ranked by hot (rotated)."));
  CHECK(contains(md, fmt::format("| big | (1, 8192, 2240) | 8192 | n/a | 40.00 / 40.00 / 50.00 | `{0}` | 2.00 / 2.00 / "
                                 "3.00 | 30.00 | 15.00 | 30.00 | 15.00 | 45.00 | 15.00 | 4 (64.0 MiB, under 2× L2) | "
                                 "1.2% / — / 3.0% (3 passes) |",
                                 full(kRegisters))));
}

TEST_CASE("summary.md sets the framework's own eager time beside the reference chain", "[heuristics][summary]") {
  namespace fs = std::filesystem;
  const fs::path gpu = fs::temp_directory_path() / "exactune-framework-times" / "some-gpu";
  fs::create_directories(gpu / "layer_norm_modulate");
  std::ofstream(gpu / "runtime.json") << R"({"torch": "2.11.0+cu130", "families": {"layer_norm_modulate": [
      {"shape": "sana", "eager_graph_us": 30.0}, {"shape": "other", "eager_graph_us": 1.0}]}})";
  const FrameworkTimes times = framework_times_beside(gpu / "layer_norm_modulate", "layer_norm_modulate");
  CHECK(times.source == "some-gpu/runtime.json (torch 2.11.0+cu130)");
  const SweepResults r = recorded_sweep();
  const std::string md = summary_markdown(r, choose_heuristics(r), {}, times);
  INFO(md);
  CHECK(
      contains(md, fmt::format("| sana | (2, 1024, 2240) | 2048 | 30.00 | 40.00 / 40.00 / — | `{0}` |", full(kAten))));
  CHECK(contains(md, "| edge-37 | (1, 37, 2240) | 37 | n/a |"));  // not in runtime.json
  CHECK(contains(md, "from some-gpu/runtime.json (torch 2.11.0+cu130) (n/a: a shape it did not measure)."));
  CHECK(framework_times_beside(gpu / "layer_norm_modulate", "qk_head_layer_norm").eager_us.empty());
  std::ofstream(gpu / "runtime.json") << "{\"torch\": 2}";
  std::string refused;
  try {
    framework_times_beside(gpu / "layer_norm_modulate", "layer_norm_modulate");
  } catch (const input_error& e) {
    refused = e.what();
  }
  CHECK(contains(refused, "some-gpu/runtime.json: not what python/tools/runtime_bench.py writes"));
  CHECK(framework_times_beside(gpu / "nowhere" / "x", "layer_norm_modulate").source.empty());
}

TEST_CASE("summary.md sets each target against the sweep, with the reason for a miss", "[heuristics][summary]") {
  const SweepResults r = recorded_sweep();
  CHECK_FALSE(contains(summary_markdown(r, choose_heuristics(r)), "## Targets"));
  const Targets targets = parse_targets_yaml(
      "targets:\n"
      "  - {shape: sana, best_over_copy: 5.0}\n"
      "  - {shape: edge-37, best_over_copy: 2.4, reason_if_missed: \"one row's chain | launch\"}\n"
      "  - {shape: flux-image, best_over_copy: 1.05}\n"
      "  - {shape: untimed-4000, best_over_copy: 1.5}\n"
      "  - {shape: gone, best_over_copy: 1.5}\n",
      "targets.yaml");
  const std::string md = summary_markdown(r, choose_heuristics(r), targets);
  INFO(md);
  CHECK(contains(md, "| sana | ≤ 5.00 | 5.000 | — | yes |  |\n"));  // the copy is 2.00, the best 10.00
  CHECK(contains(md, "| edge-37 | ≤ 2.40 | 2.500 | — | no | one row's chain \\| launch |\n"));
  CHECK(contains(md, "| flux-image | ≤ 1.05 | 10.000 | — | no | none recorded |\n"));
  CHECK(contains(md, "| untimed-4000 | ≤ 1.50 | — | — | not timed |  |\n"));
  CHECK(contains(md, "| gone | ≤ 1.50 | — | — | not swept |  |\n"));
}

TEST_CASE("targets.yaml errors name the file and line", "[heuristics][summary]") {
  auto error_of = [](const std::string& text) {
    try {
      parse_targets_yaml(text, "t.yaml");
    } catch (const input_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("targets:\n  - shape: a\n    best: 1.1\n") ==
        "t.yaml:3: unknown key 'best' in a target (known: shape, best_over_copy, reason_if_missed)");
  CHECK(error_of("targets:\n  - shape: a\n    best_over_copy: 0.9\n") ==
        "t.yaml:3: best_over_copy 0.9 is no target: the copy itself is 1.0");
  CHECK(error_of("targets:\n  - shape: a\n    best_over_copy: fast\n") ==
        "t.yaml:3: best_over_copy must be a number, got 'fast'");
  CHECK(error_of("targets:\n  - shape: a\n") == "t.yaml:2: a target is missing key 'best_over_copy'");
  CHECK(error_of("targets:\n  - {shape: a, best_over_copy: 1.1}\n  - {shape: a, best_over_copy: 1.2}\n") ==
        "t.yaml:3: shape 'a' has a target already");
  CHECK(error_of("targets:\n  - {shape: '', best_over_copy: 1.1}\n") == "t.yaml:2: a target needs a shape name");
  CHECK(error_of("targets: 3\n") == "t.yaml:1: targets must be a list, got '3'");
  CHECK(error_of("shapes: []\n") == "t.yaml:1: unknown key 'shapes' in the top level (known: targets)");
}

TEST_CASE("heatmaps: one panel per tail strategy, grey where no variant is exact", "[heuristics][summary]") {
  SweepResults r = recorded_sweep();
  r.shapes[3].shape.name = "big<&>";
  const std::string svg = heatmap_svg(r, 2240, "big<&>");
  INFO(svg);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.ends_with("</svg>\n"));
  CHECK(contains(svg, "big&lt;&amp;&gt;"));
  CHECK(contains(svg, "hot (rotated) median / copy by num_warps × rows_per_cta (hidden=2240, rows=8192)"));
  CHECK(contains(svg, "tail: predicated"));
  CHECK(contains(svg, "tail: peeled"));
  CHECK(contains(svg, "15.00×"));  // the fastest cell: 30 us over a 2 us copy
  CHECK(contains(svg, "v8 registers"));
  // 5 warps x 4 rows x 2 tails cells; 2 timed (w2_r1 and w4_r1, predicated).
  std::size_t grey = 0;
  for (std::size_t at = svg.find("fill=\"#c8c8c8\""); at != std::string::npos;
       at = svg.find("fill=\"#c8c8c8\"", at + 1)) {
    ++grey;
  }
  CHECK(grey == 40 - 2 + 1);  // and the legend's swatch
  CHECK(contains(error_of([&] { heatmap_svg(r, 3072, "big<&>"); }), "no shape big<&> at hidden 3072"));
}
