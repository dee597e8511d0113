// summary.md and its heatmaps, made from the recorded sweep
// (support/recorded_sweep.hpp, the toy family's): per shape the roofline, the
// reference chain, the best exact and the chosen variant in every regime, what
// each axis is worth, the framework's own eager time beside the reference
// chain, each target against the sweep, and the heatmaps' panels and cells.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "choose/chooser.hpp"
#include "report/heatmap_svg.hpp"
#include "report/summary_report.hpp"
#include "store/framework_times.hpp"
#include "store/heuristics.hpp"
#include "store/targets.hpp"
#include "support/recorded_sweep.hpp"

using namespace exactune;
using namespace recorded;

TEST_CASE("summary.md: per shape the roofline, eager, best exact and chosen variant", "[summary]") {
  const SweepResults r = recorded_sweep();
  const std::string md = summary_markdown(r, choose_heuristics(r));
  INFO(md);
  CHECK(md.rfind("# exactune sweep: NVIDIA H200 (sm_90, 132 SMs), CUDA driver 13.0, NVRTC 13.0\n", 0) == 0);
  // The parameters that differ between shapes in the table, the others said once.
  CHECK(contains(md, "Every shape has scale=2.0.\n\n| shape | (rows, length) | rows |"));
  CHECK(contains(md, "for the shape's size (length) and row count."));
  CHECK(contains(md, "length 2240, big:\n"));
  // Torch eager (n/a: no runtime.json), the reference chain and the copy in
  // every regime, the best exact by the policy, its figure and ratio to the
  // copy per regime, then rotation, noise, the chosen variant.
  CHECK(contains(md, fmt::format("| mid | (2048, 2240) | 2048 | n/a | 40.00 / 40.00 / — | `{0}` | 2.00 / 2.00 / — "
                                 "| 10.00 | 5.00 | 10.00 | 5.00 | — | — | — | — | `{0}` | 3/4 |",
                                 kDefault)));
  CHECK(contains(md,
                 "Torch eager: the framework's own chain on the same GPU under CUDA-graph replay of the same "
                 "buffers (compare with hot (L2-resident)), n/a: not measured, as no runtime.json"));
  CHECK(contains(md,
                 "| untimed-4000 | (4000, 2240) | 4000 | n/a | 40.00 / 40.00 / — | — | 2.00 / 2.00 / — | — | — "
                 "| — | — | — | — | — | — |"));
  CHECK(contains(md, "## What each axis is worth"));
  CHECK(contains(md, "| shape | threads | vector |"));
  CHECK(contains(md, fmt::format("- edge-37 `{}`: incorrect: case c1, row 3, column 17", kIncorrect)));
  CHECK(contains(md, "\\| more"));  // a '|' in a failure cannot break the list
  CHECK(contains(md, "](heatmap_big.svg)"));
  CHECK(contains(md, "](heatmap_long-4608.svg)"));
  CHECK(summary_heatmaps(r).size() == 2);
}

// Every figure summary.md must give, by its column: dropping one fails here.
TEST_CASE("summary.md has every regime's column, the rotation's K and the policy", "[summary]") {
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
  CHECK(contains(md, fmt::format("| big | (8192, 2240) | 8192 | n/a | 40.00 / 40.00 / 50.00 | `{0}` | 2.00 / 2.00 / "
                                 "3.00 | 30.00 | 15.00 | 30.00 | 15.00 | 45.00 | 15.00 | 4 (64.0 MiB, under 2× L2) | "
                                 "1.2% / — / 3.0% (3 passes) |",
                                 kLarge)));
}

TEST_CASE("summary.md gives each shape's SM clock and names the throttled figures, and says nothing without one",
          "[summary]") {
  SweepResults r = recorded_sweep();
  CHECK_FALSE(contains(summary_markdown(r, choose_heuristics(r)), "SM clock"));
  r.shapes[3].sm_clock = SmClockRecord{1980, 1400, 1980, 12, {"copy cold"}};
  r.shapes[0].sm_clock = SmClockRecord{1980, 1965, 1980, 9, {}};
  const std::string md = summary_markdown(r, choose_heuristics(r));
  INFO(md);
  CHECK(contains(md, "SM clock, read right after each figure's samples (default 1980 MHz): "));
  CHECK(contains(md, "big 1400-1980 MHz (12 figures)"));
  CHECK(contains(md, "Figures read below 75% of the default (throttled, as nvbench calls it): big copy cold."));
}

TEST_CASE("summary.md sets the framework's own eager time beside the reference chain", "[summary]") {
  namespace fs = std::filesystem;
  const TempDir dir("framework-times");
  const fs::path gpu = dir.path() / "some-gpu";
  fs::create_directories(gpu / "toy_double");
  std::ofstream(gpu / "runtime.json") << R"({"torch": "2.11.0+cu130", "families": {"toy_double": [
      {"shape": "mid", "eager_graph_us": 30.0}, {"shape": "other", "eager_graph_us": 1.0}]}})";
  const FrameworkTimes times = framework_times_beside(gpu / "toy_double", "toy_double");
  CHECK(times.source == "some-gpu/runtime.json (torch 2.11.0+cu130)");
  const SweepResults r = recorded_sweep();
  const std::string md = summary_markdown(r, choose_heuristics(r), {}, times);
  INFO(md);
  CHECK(contains(md, fmt::format("| mid | (2048, 2240) | 2048 | 30.00 | 40.00 / 40.00 / — | `{0}` |", kDefault)));
  CHECK(contains(md, "| edge-37 | (37, 2240) | 37 | n/a |"));  // not in runtime.json
  CHECK(contains(md, "from some-gpu/runtime.json (torch 2.11.0+cu130) (n/a: a shape it did not measure)."));
  CHECK(framework_times_beside(gpu / "toy_double", "another_family").eager_us.empty());
  std::ofstream(gpu / "runtime.json") << "{\"torch\": 2}";
  std::string refused;
  try {
    framework_times_beside(gpu / "toy_double", "toy_double");
  } catch (const input_error& e) {
    refused = e.what();
  }
  CHECK(contains(refused, "some-gpu/runtime.json: not what python/tools/runtime_bench.py writes"));
  CHECK(framework_times_beside(gpu / "nowhere" / "x", "toy_double").source.empty());
}

TEST_CASE("summary.md sets each target against the sweep, with the reason for a miss", "[summary]") {
  const SweepResults r = recorded_sweep();
  CHECK_FALSE(contains(summary_markdown(r, choose_heuristics(r)), "## Targets"));
  const Targets targets = parse_targets_yaml(
      "targets:\n"
      "  - {shape: mid, best_over_copy: 5.0}\n"
      "  - {shape: edge-37, best_over_copy: 2.4, reason_if_missed: \"one row's chain | launch\"}\n"
      "  - {shape: long-4096, best_over_copy: 1.05}\n"
      "  - {shape: untimed-4000, best_over_copy: 1.5}\n"
      "  - {shape: gone, best_over_copy: 1.5}\n",
      "targets.yaml");
  const std::string md = summary_markdown(r, choose_heuristics(r), targets);
  INFO(md);
  CHECK(contains(md, "| mid | ≤ 5.00 | 5.000 | — | yes |  |\n"));  // the copy is 2.00, the best 10.00
  CHECK(contains(md, "| edge-37 | ≤ 2.40 | 2.500 | — | no | one row's chain \\| launch |\n"));
  CHECK(contains(md, "| long-4096 | ≤ 1.05 | 10.000 | — | no | none recorded |\n"));
  CHECK(contains(md, "| untimed-4000 | ≤ 1.50 | — | — | not timed |  |\n"));
  CHECK(contains(md, "| gone | ≤ 1.50 | — | — | not swept |  |\n"));
}

// (Each cell's label, the axes its position does not show, needs a fourth axis:
// the committed reports' heatmaps show it, tests/report/test_committed_reports.cpp.)
TEST_CASE("heatmaps: one panel per value of the panels' axis, grey where no variant is exact", "[summary]") {
  SweepResults r = recorded_sweep();
  r.shapes[3].shape.name = "big<&>";
  const std::string svg = heatmap_svg(r, 2240, "big<&>");
  INFO(svg);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.ends_with("</svg>\n"));
  CHECK(contains(svg, "big&lt;&amp;&gt;"));
  CHECK(contains(svg, "hot (rotated) median / copy by threads × result (length=2240, rows=8192)"));
  CHECK(contains(svg, "vector: 4"));
  CHECK(contains(svg, "vector: 8"));
  CHECK(contains(svg, "15.00×"));  // the fastest cell: 30 us over a 2 us copy
  // 5 threads x 2 results x 2 vectors cells; 3 timed and exact (t32_v4, t128_v4 and t64_v8, right).
  std::size_t grey = 0;
  for (std::size_t at = svg.find("fill=\"#c8c8c8\""); at != std::string::npos;
       at = svg.find("fill=\"#c8c8c8\"", at + 1)) {
    ++grey;
  }
  CHECK(grey == 20 - 3 + 1);  // and the legend's swatch
  CHECK(contains(error_of([&] { heatmap_svg(r, 3072, "big<&>"); }), "no shape big<&> at length 3072"));
}
