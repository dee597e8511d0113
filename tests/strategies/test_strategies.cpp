// Search strategies (harness/strategies/): the registry's contract with a
// plug-in registered the way any strategy is, exhaustive and successive halving
// deciding on synthetic screens (no GPU, nothing timed), and what sweep.yaml
// and summary.md record of a strategy's decisions (on the toy family's recorded
// sweep, support/recorded_sweep.hpp): written, read back, and absent from the
// format-3 files committed before strategies.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "choose/chooser.hpp"
#include "report/summary_report.hpp"
#include "store/sweep_file.hpp"
#include "strategies/anchored_search.hpp"
#include "strategies/builtin_strategies.hpp"
#include "strategies/strategy_registry.hpp"
#include "support/recorded_sweep.hpp"

using namespace exactune;

namespace {

// A plug-in as a user would write one: times fully only the variants whose name ends in "keep".
class KeepSuffixed final : public SearchStrategy {
 public:
  std::string name() const override { return "test_keep_suffixed"; }
  std::string description() const override { return "times only the variants named *keep (a test's plug-in)"; }
  std::string settings() const override { return "suffix keep"; }
  SearchDecision decide(const std::vector<std::string>& variants, const ScreenMeasure& screen,
                        const SearchContext&) const override {
    SearchDecision decision;
    decision.rounds = 1;
    for (const std::string& v : variants) {
      if (v.ends_with("keep")) {
        decision.fully_timed.push_back(v);
      } else {
        decision.cut.push_back({v, 1, *screen(v, 1, ScreenEffort{})});
      }
    }
    return decision;
  }
};
EXACTUNE_REGISTER_STRATEGY(KeepSuffixed);

// A fake GPU: each variant's true figure, a screen spread, and every call it got.
struct FakeScreens {
  std::map<std::string, double> figure;
  double spread = 0.01;
  std::set<std::string> failing;
  std::vector<std::tuple<std::string, int, ScreenEffort>> calls;

  ScreenMeasure measure() {
    return [this](const std::string& variant, int round, const ScreenEffort& effort) -> std::optional<Screen> {
      calls.emplace_back(variant, round, effort);
      if (failing.contains(variant)) return std::nullopt;
      const double f = figure.at(variant);
      return Screen{f, spread, {{TimingRegime::rotated, Timing{f, f * (1 - spread / 2), f * (1 + spread / 2), 3}}}};
    };
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, f] : figure) out.push_back(name);
    return out;
  }
};

const SearchStrategy& halving() { return StrategyRegistry::instance().find("successive_halving"); }

bool holds(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// Every variant given ends in exactly one of the decision's lists.
void check_partition(const SearchDecision& d, const std::vector<std::string>& variants) {
  std::multiset<std::string> seen(d.fully_timed.begin(), d.fully_timed.end());
  for (const CutVariant& c : d.cut) seen.insert(c.variant);
  seen.insert(d.screen_failed.begin(), d.screen_failed.end());
  CHECK(seen == std::multiset<std::string>(variants.begin(), variants.end()));
}

}  // namespace

TEST_CASE("a strategy registered through the registry is found by name, listed, and decides through its screens",
          "[strategies]") {
  const SearchStrategy& plugin = StrategyRegistry::instance().find("test_keep_suffixed");
  CHECK(plugin.name() == "test_keep_suffixed");
  CHECK(StrategyRegistry::instance().listing().find("test_keep_suffixed: times only the variants named *keep") !=
        std::string::npos);
  const std::vector<const SearchStrategy*> all = StrategyRegistry::instance().all();
  REQUIRE(all.size() >= 3);
  CHECK(all.front()->name() == StrategyRegistry::kDefault);  // the default first, for --help
  FakeScreens screens;
  screens.figure = {{"a_keep", 1.0}, {"b", 2.0}};
  const SearchDecision d = plugin.decide(screens.names(), screens.measure(), {});
  CHECK(d.fully_timed == std::vector<std::string>{"a_keep"});
  REQUIRE(d.cut.size() == 1);
  CHECK(d.cut[0].screen.figure == 2.0);
}

TEST_CASE("an unknown strategy is refused naming every known one, a name taken twice is refused", "[strategies]") {
  try {
    StrategyRegistry::instance().find("fastest");
    FAIL("an unknown strategy was found");
  } catch (const input_error& e) {
    const std::string message = e.what();
    CHECK(message.starts_with("--strategy 'fastest' is no search strategy; the strategies are: successive_halving: "));
    CHECK(message.find("; exhaustive: time every exact variant fully") != std::string::npos);
  }
  CHECK_THROWS_AS(StrategyRegistry::instance().add(make_exhaustive_strategy()), error);
}

TEST_CASE("exhaustive times every exact variant fully and screens none", "[strategies]") {
  FakeScreens screens;
  for (int i = 0; i < 30; ++i) screens.figure[fmt::format("v{:02}", i)] = 10.0 + i;
  const SearchDecision d =
      StrategyRegistry::instance().find("exhaustive").decide(screens.names(), screens.measure(), {});
  CHECK(d.fully_timed == screens.names());
  CHECK(d.cut.empty());
  CHECK(d.rounds == 0);
  CHECK(screens.calls.empty());
}

TEST_CASE("successive halving keeps the best and every variant within noise of it, cuts clear losers, and stops",
          "[strategies]") {
  FakeScreens screens;
  screens.figure = {{"best", 10.0}, {"tie_1pct", 10.1}, {"tie_2pct", 10.2}};
  for (int i = 0; i < 61; ++i) screens.figure[fmt::format("slow{:02}", i)] = 11.0 + 0.25 * i;  // 10% slower and more
  const std::vector<std::string> variants = screens.names();
  const SearchDecision d = halving().decide(variants, screens.measure(), SearchContext{4});
  check_partition(d, variants);
  for (const char* kept : {"best", "tie_1pct", "tie_2pct"}) CHECK(holds(d.fully_timed, kept));
  // 64 -> 32 -> 16 -> 8 -> 4 survivors: the fastest four, in four rounds, none more.
  CHECK(d.rounds == 4);
  CHECK(d.fully_timed == std::vector<std::string>{"best", "slow00", "tie_1pct", "tie_2pct"});
  for (const CutVariant& c : d.cut) {
    INFO(c.variant);
    CHECK(c.screen.figure > 10.0 * 1.03);
    CHECK(c.round >= 1);
    CHECK(c.round <= d.rounds);
  }
  // Each round screens only the survivors of the one before, with twice the iterations.
  std::map<int, int> screened_in_round;
  for (const auto& [variant, round, effort] : screens.calls) {
    ++screened_in_round[round];
    CHECK(effort.repetitions == 3);
    CHECK(effort.iterations == 1 << (round - 1));
  }
  CHECK(screened_in_round == std::map<int, int>{{1, 64}, {2, 32}, {3, 16}, {4, 8}});
  // The same screens (a resumed sweep's, from its journal) make the same decision.
  FakeScreens again = screens;
  const SearchDecision replayed = halving().decide(variants, again.measure(), SearchContext{4});
  CHECK(replayed.fully_timed == d.fully_timed);
  CHECK(replayed.cut.size() == d.cut.size());
}

TEST_CASE("each round screens in a shuffled order, the same every time, and the decision does not depend on it",
          "[strategies]") {
  FakeScreens screens;
  for (int i = 0; i < 32; ++i) screens.figure[fmt::format("v{:02}", i)] = 10.0 + 0.5 * i;
  const std::vector<std::string> variants = screens.names();
  const SearchDecision d = halving().decide(variants, screens.measure(), SearchContext{4});
  std::map<int, std::vector<std::string>> order;
  for (const auto& [variant, round, effort] : screens.calls) order[round].push_back(variant);
  REQUIRE(order.size() >= 2);
  // Round 1 is a permutation of every variant, not their name order (a drift would favour low names).
  std::vector<std::string> sorted = order[1];
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == variants);
  CHECK(order[1] != variants);
  CHECK(order[1].front() != variants.front());
  // The same every time: a resumed sweep screens in the same order.
  FakeScreens again;
  again.figure = screens.figure;
  const SearchDecision replayed = halving().decide(variants, again.measure(), SearchContext{4});
  std::map<int, std::vector<std::string>> again_order;
  for (const auto& [variant, round, effort] : again.calls) again_order[round].push_back(variant);
  CHECK(again_order == order);
  CHECK(replayed.fully_timed == d.fully_timed);
  // Given in reverse, the same variants are screened in the same order and decided alike.
  FakeScreens reversed;
  reversed.figure = screens.figure;
  const SearchDecision backwards = halving().decide(std::vector<std::string>(variants.rbegin(), variants.rend()),
                                                    reversed.measure(), SearchContext{4});
  std::map<int, std::vector<std::string>> reversed_order;
  for (const auto& [variant, round, effort] : reversed.calls) reversed_order[round].push_back(variant);
  CHECK(reversed_order == order);
  std::vector<std::string> kept = backwards.fully_timed;
  std::sort(kept.begin(), kept.end());
  std::vector<std::string> kept_forward = d.fully_timed;
  std::sort(kept_forward.begin(), kept_forward.end());
  CHECK(kept == kept_forward);
}

TEST_CASE("successive halving never cuts within the screens' own spread, and stops when a round cuts nothing",
          "[strategies]") {
  FakeScreens screens;
  screens.spread = 0.25;  // screens this noisy tell 10 from 12 apart no better than a coin
  for (int i = 0; i < 20; ++i) screens.figure[fmt::format("v{:02}", i)] = 10.0 + 0.1 * i;
  screens.figure["clearly_slow"] = 20.0;
  const SearchDecision d = halving().decide(screens.names(), screens.measure(), SearchContext{4});
  check_partition(d, screens.names());
  CHECK(d.rounds == 2);  // the second round, within noise throughout, cut nothing
  REQUIRE(d.cut.size() == 1);
  CHECK(d.cut[0].variant == "clearly_slow");
  CHECK(d.fully_timed.size() == 20);
}

// Screens that kept their samples are cut by the one comparison (time/comparison.hpp), not by their ranges:
// a figure whose range an outlier widened is still cut when every sample is slower, and one whose range lies
// beyond the floor stays when its samples overlap the best's.
TEST_CASE("successive halving cuts by the comparison where screens kept samples, by ranges where not", "[strategies]") {
  std::map<std::string, std::vector<double>> samples = {
      {"best", {10.0, 10.01, 10.02}},
      {"outlier_slow", {10.5, 10.6, 12.6}},    // range 20%: "within noise" by ranges; every sample slower
      {"overlapping", {10.015, 10.6, 10.61}},  // range 5.6%, 5.9% behind: cut by ranges; overlaps the best
  };
  for (int i = 0; i < 5; ++i) samples[fmt::format("fast{}", i)] = samples["best"];
  for (int i = 0; i < 5; ++i) samples[fmt::format("slow{}", i)] = {20.0 + i, 20.01 + i, 20.02 + i};
  const auto screen_of = [](const std::vector<double>& s, bool keep_samples) {
    Timing t{s[1], s[0], s[2], 3};
    if (keep_samples) t.samples_us = s;
    return Screen{t.median_us, t.spread(), {{TimingRegime::rotated, t}}};
  };
  std::vector<std::string> variants;
  for (const auto& [name, s] : samples) variants.push_back(name);
  const auto decide = [&](bool keep_samples) {
    const ScreenMeasure measure = [&](const std::string& variant, int, const ScreenEffort&) {
      return std::optional<Screen>(screen_of(samples.at(variant), keep_samples));
    };
    return halving().decide(variants, measure, SearchContext{4});
  };
  const auto was_cut = [](const SearchDecision& d, const std::string& variant) {
    return std::any_of(d.cut.begin(), d.cut.end(), [&](const CutVariant& c) { return c.variant == variant; });
  };
  const SearchDecision compared = decide(true);
  check_partition(compared, variants);
  CHECK(was_cut(compared, "outlier_slow"));
  CHECK(holds(compared.fully_timed, "overlapping"));
  for (int i = 0; i < 5; ++i) CHECK(holds(compared.fully_timed, fmt::format("fast{}", i)));
  for (int i = 0; i < 5; ++i) CHECK(was_cut(compared, fmt::format("slow{}", i)));

  const SearchDecision ranged = decide(false);  // summaries only: the range rule, as before
  check_partition(ranged, variants);
  CHECK(holds(ranged.fully_timed, "outlier_slow"));
  CHECK(was_cut(ranged, "overlapping"));
}

TEST_CASE("successive halving leaves the re-timing its contenders, screens none when few, and drops a failed screen",
          "[strategies]") {
  FakeScreens screens;
  for (int i = 0; i < 40; ++i) screens.figure[fmt::format("v{:02}", i)] = 10.0 * (1 + 0.1 * i);
  screens.failing = {"v00"};
  const SearchDecision d = halving().decide(screens.names(), screens.measure(), SearchContext{7});
  check_partition(d, screens.names());
  CHECK(d.screen_failed == std::vector<std::string>{"v00"});
  CHECK(d.fully_timed == std::vector<std::string>{"v01", "v02", "v03", "v04", "v05", "v06", "v07"});

  FakeScreens few;
  few.figure = {{"a", 1.0}, {"b", 5.0}, {"c", 9.0}, {"d", 20.0}};
  const SearchDecision none = halving().decide(few.names(), few.measure(), SearchContext{4});
  CHECK(none.fully_timed == few.names());
  CHECK(few.calls.empty());
}

TEST_CASE("sweep.yaml records the strategy and each screened-out variant's round and screen, and reads them back",
          "[strategies][sweep_file]") {
  using namespace recorded;
  SweepResults r = readable_sweep();
  r.strategy = "successive_halving";
  r.strategy_settings = halving().settings();
  VariantResult* cut = nullptr;
  for (VariantResult& v : r.shapes.at(0).variants) {
    if (v.variant == kUntimed) cut = &v;
  }
  REQUIRE(cut != nullptr);
  cut->screened_out = ScreenedOut{
      2, {{TimingRegime::rotated, Timing{7.25, 7.0, 7.5, 3}}, {TimingRegime::cold, Timing{9.5, 9.0, 10.0, 3}}}};
  const std::string text = to_sweep_yaml(r);
  INFO(text);
  CHECK(contains(text, "\nexactune_sweep: 4\n"));
  CHECK(contains(text, "\nstrategy: {name: successive_halving, settings: \"screens of 3 repetitions"));
  CHECK(contains(text,
                 "        screened_out: {round: 2, rotated: {median: 7.25, min: 7.0, max: 7.5, samples: 3}, "
                 "cold: {median: 9.5, min: 9.0, max: 10.0, samples: 3}}\n"));
  const SweepResults read = parse_sweep_yaml(text, "s.yaml");
  CHECK(read.strategy == r.strategy);
  CHECK(read.strategy_settings == r.strategy_settings);
  const VariantResult* back = read.shapes.at(0).find(kUntimed);
  REQUIRE(back != nullptr);
  REQUIRE(back->screened_out);
  CHECK(back->screened_out->round == 2);
  REQUIRE(back->screened_out->timings.size() == 2);
  CHECK(back->screened_out->timings[1].first == TimingRegime::cold);
  CHECK(back->screened_out->timings[1].second.median_us == 9.5);
  CHECK(to_sweep_yaml(read) == text);

  // The chooser, and summary.md, take a sweep with untimed exact variants; the summary says who chose and how many.
  const std::string md = summary_markdown(read, choose_heuristics(read));
  CHECK(contains(md, "Search strategy `successive_halving` (screens of 3 repetitions"));
  CHECK(contains(md, "Exact variants timed fully, per shape: edge-37 3 of 4, mid 3 of 3, untimed-4000 0 of 2"));

  // A screened-out variant is exact and untimed: one with timings is refused on its line.
  const std::string timed_and_cut = [&] {
    std::string t = text;
    const std::string line = "        screened_out: {round: 2,";
    const std::size_t at = t.find(line);
    const std::size_t other = t.find("        rotated_median_us:");
    REQUIRE(other < at);
    // Move the screened_out line under the first variant, which has timings.
    const std::size_t end = t.find('\n', at);
    const std::string cut_line = t.substr(at, end - at + 1);
    t.erase(at, end - at + 1);
    t.insert(other, cut_line);
    return t;
  }();
  try {
    parse_sweep_yaml(timed_and_cut, "s.yaml");
    FAIL("a timed variant marked screened out was read");
  } catch (const input_error& e) {
    CHECK(contains(e.what(), "screened_out: only an exact variant without timings is screened out"));
    CHECK(std::string(e.what()).starts_with("s.yaml:"));
  }
}

TEST_CASE(
    "every committed format-3 sweep still reads and writes back the same, with no strategy, and its summary says "
    "none",
    "[strategies][committed]") {
  namespace fs = std::filesystem;
  std::vector<fs::path> sweeps;
  for (const fs::directory_entry& gpu : fs::directory_iterator(fs::path(EXACTUNE_SOURCE_DIR) / "reports")) {
    if (!gpu.is_directory()) continue;
    for (const fs::directory_entry& family : fs::directory_iterator(gpu.path())) {
      if (fs::exists(family.path() / "sweep.yaml")) sweeps.push_back(family.path() / "sweep.yaml");
    }
  }
  int format_3 = 0;
  for (const fs::path& committed : sweeps) {
    const std::string text = recorded::read_text(committed);
    if (text.find("\nexactune_sweep: 3\n") == std::string::npos) continue;
    ++format_3;
    INFO(committed.string());
    const SweepResults r = parse_sweep_yaml(text, committed.string());
    CHECK(r.strategy.empty());
    CHECK(to_sweep_yaml(r) == text);  // written as format 3 still: the committed reports regenerate byte for byte
    for (const ShapeResult& s : r.shapes) {
      for (const VariantResult& v : s.variants) CHECK_FALSE(v.screened_out);
    }
    // A format-3 file marking a variant screened out is refused: the key did not exist then.
    std::string marked = text;
    const std::size_t exact_line = marked.find("        exact: true\n");
    REQUIRE(exact_line != std::string::npos);
    marked.insert(exact_line, "        screened_out: {round: 1}\n");
    CHECK_THROWS_AS(parse_sweep_yaml(marked, "old.yaml"), input_error);
    CHECK_FALSE(recorded::contains(summary_markdown(r, choose_heuristics(r)), "Search strategy"));
  }
  CHECK(format_3 > 0);
}

TEST_CASE("an anchor is timed fully and never screened, the strategy deciding over the others alone", "[strategies]") {
  FakeScreens screens;
  // The anchor is by far the slowest: successive halving would cut it in round 1.
  screens.figure = {{"a", 1.0}, {"b", 1.1}, {"c", 3.0}, {"d", 3.1},   {"e", 3.2},
                    {"f", 3.3}, {"g", 3.4}, {"h", 3.5}, {"rule", 9.0}};
  const std::vector<std::string> variants = screens.names();
  const SearchDecision alone = halving().decide(variants, screens.measure(), SearchContext{2});
  REQUIRE(std::any_of(alone.cut.begin(), alone.cut.end(), [](const CutVariant& c) { return c.variant == "rule"; }));
  screens.calls.clear();
  const SearchDecision d =
      decide_with_anchors(halving(), variants, {"rule", "not_exact_here"}, screens.measure(), SearchContext{2});
  check_partition(d, variants);
  CHECK(d.fully_timed.back() == "rule");
  CHECK_FALSE(holds(d.fully_timed, "not_exact_here"));
  CHECK(std::none_of(screens.calls.begin(), screens.calls.end(),
                     [](const auto& call) { return std::get<0>(call) == "rule"; }));
  // Without the anchor, the same screens give the same decision over the rest.
  std::vector<std::string> rest = variants;
  std::erase(rest, "rule");
  const SearchDecision over_rest = halving().decide(rest, screens.measure(), SearchContext{2});
  std::vector<std::string> timed_rest = d.fully_timed;
  timed_rest.pop_back();
  CHECK(timed_rest == over_rest.fully_timed);
}
