// How often a fast search strategy chooses as exhaustive search does
// (report/strategy_agreement.hpp, exactune agreement): on two report folders
// of the toy's recorded sweep, a choice equal, one within the exhaustive
// sweep's noise, one worse; where the figures kept samples, the chooser's
// comparison decides instead; and folders it cannot read are refused.
#include <filesystem>
#include <map>
#include <string>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "choose/chooser.hpp"
#include "report/strategy_agreement.hpp"
#include "store/heuristics_file.hpp"
#include "support/recorded_sweep.hpp"
#include "support/run_cli.hpp"
#include "support/sampled_timings.hpp"

using namespace recorded;

namespace {

// A report folder: the sweep, and heuristics chosen from it with `overrides`
// (evidence shape -> the variant chosen instead).
fs::path report_folder(const fs::path& folder, const SweepResults& sweep,
                       const std::map<std::string, std::string>& overrides = {}) {
  fs::create_directories(folder);
  write_text(folder / "sweep.yaml", to_sweep_yaml(sweep));
  Heuristics h = choose_heuristics(sweep);
  for (Choice& c : h.device.choices) {
    if (const auto it = overrides.find(c.shape); it != overrides.end()) c.chosen = configuration(it->second);
  }
  write_text(folder / "heuristics.yaml", to_heuristics_yaml(h));
  return folder;
}

std::string row_of(const std::string& markdown, const std::string& shape) {
  const std::size_t at = markdown.find("| " + shape + " |");
  REQUIRE(at != std::string::npos);
  return markdown.substr(at, markdown.find('\n', at) - at);
}

}  // namespace

TEST_CASE("a fast strategy's choices against exhaustive's: equal, within noise, worse", "[report][agreement]") {
  const TempDir dir("agreement");
  const SweepResults sweep = readable_sweep();
  const Heuristics exhaustive = choose_heuristics(sweep);
  const Choice* big = exhaustive.device.choice_for(2240, 8192);
  const Choice* edge = exhaustive.device.choice_for(2240, 37);
  REQUIRE(big != nullptr);
  REQUIRE(edge != nullptr);
  REQUIRE(big->chosen.variant == kLarge);
  // At 37 rows the wide variant and the default are 1% apart; at 8192 rows the default is 6.7% behind.
  const std::string other_at_edge = edge->chosen.variant == kWide ? kDefault : kWide;
  const fs::path exh = report_folder(dir.path() / "exh" / "toy_double", sweep);
  const fs::path fast =
      report_folder(dir.path() / "fast" / "toy_double", sweep, {{big->shape, kDefault}, {edge->shape, other_at_edge}});
  const Agreement a = strategy_agreement(dir.path() / "exh", dir.path() / "fast");
  INFO(a.markdown);
  CHECK(a.markdown.rfind("# Search strategies: exhaustive against fast\n\n## toy_double on NVIDIA H200", 0) == 0);
  CHECK(contains(row_of(a.markdown, big->shape), "| no | worse by 6.7% (noise 2.0%) |"));
  CHECK(contains(row_of(a.markdown, edge->shape), "| no | within noise ("));
  CHECK(a.counts.worse == 1);
  CHECK(a.counts.same == 1);
  CHECK(a.counts.equal == a.counts.total() - 2);
  CHECK(contains(a.markdown,
                 fmt::format("\n{} of {} choices equal, 1 within noise, 1 worse\n", a.counts.equal, a.counts.total())));

  // The command prints the same and exits 0; a folder without reports is exit 2, in one line.
  const CliResult ok =
      run_toy_cli(fmt::format("agreement '{}' '{}'", (dir.path() / "exh").string(), (dir.path() / "fast").string()));
  CHECK(ok.exit_code == 0);
  CHECK(ok.output == a.markdown);
  const CliResult missing =
      run_toy_cli(fmt::format("agreement '{}' '{}'", (dir.path() / "exh").string(), (dir.path() / "nothing").string()));
  CHECK(missing.exit_code == 2);
  CHECK(contains(missing.output, "not a folder of reports"));
  fs::create_directories(dir.path() / "other" / "another_family");
  write_text(dir.path() / "other" / "another_family" / "heuristics.yaml", "x");
  CHECK_THROWS_WITH(strategy_agreement(dir.path() / "exh", dir.path() / "other"),
                    Catch::Contains("no report folder toy_double as in"));
}

TEST_CASE("where the figures kept samples, the chooser's comparison judges the choices", "[report][agreement]") {
  const TempDir dir("agreement-samples");
  SweepResults sweep = readable_sweep();
  ShapeResult& big = sweep.shapes[3];
  REQUIRE(big.shape.name == "big");
  big.copy_rotated = exactune_test::sampled_timing(exactune_test::samples_around(8.0, 0.01));
  const auto with_samples = [&](const std::string& name, double median_us) {
    for (VariantResult& v : big.variants) {
      if (v.variant == name) v.rotated = exactune_test::sampled_timing(exactune_test::samples_around(median_us, 0.01));
    }
  };
  with_samples(kLarge, 30.0);
  with_samples(kDefault, 30.1);  // the same, by the comparison at 2%: the size's shared configuration stays chosen
  with_samples(kWide, 33.5);     // worse
  REQUIRE(choose_heuristics(sweep).device.choice_for(2240, 8192)->chosen.variant == kDefault);
  report_folder(dir.path() / "exh", sweep);
  report_folder(dir.path() / "same", sweep, {{"big", kLarge}});
  report_folder(dir.path() / "worse", sweep, {{"big", kWide}});
  const Agreement same = strategy_agreement(dir.path() / "exh", dir.path() / "same");
  INFO(same.markdown);
  CHECK(contains(row_of(same.markdown, "big"), "| no | the same by the comparison (rotated -0.3% ["));
  const Agreement worse = strategy_agreement(dir.path() / "exh", dir.path() / "worse");
  INFO(worse.markdown);
  CHECK(contains(row_of(worse.markdown, "big"), "| no | worse by the comparison (rotated +11.3% ["));
}
