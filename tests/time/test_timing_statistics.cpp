// The measurement machinery that needs no GPU: Google Benchmark driven with
// manual time, the statistics over its samples, the retry rule, and the rotated regime's
// plan (how many copies of the inputs, how many launches per graph).
#include <stdexcept>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "time/benchmark_runner.hpp"
#include "time/rotation.hpp"
#include "time/statistics.hpp"

using namespace exactune;

TEST_CASE("every manual sample time comes back, in microseconds, in the order taken", "[timing]") {
  int calls = 0;
  // Repetition r takes samples 10r+1 .. 10r+4 us: each is kept, none averaged.
  const auto samples = run_samples("fake", 4, 3, [&] {
    const int r = calls / 4, i = calls % 4;
    ++calls;
    return 10.0 * r + 1 + i;
  });
  CHECK(calls == 12);
  CHECK(samples == std::vector<double>{1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24});
}

TEST_CASE("a failing sampler is an error naming the figure", "[timing]") {
  try {
    run_samples("shape/variant/hot", 2, 2, []() -> double { throw std::runtime_error("launch failed"); });
    FAIL("no error");
  } catch (const error& e) {
    CHECK(std::string(e.what()).find("shape/variant/hot") != std::string::npos);
    CHECK(std::string(e.what()).find("launch failed") != std::string::npos);
  }
}

TEST_CASE("timing statistics: median, extremes and relative spread", "[timing]") {
  const Timing odd = timing_from_samples({5, 1, 3});
  CHECK(odd.median_us == 3);
  CHECK(odd.min_us == 1);
  CHECK(odd.max_us == 5);
  CHECK(odd.samples == 3);
  CHECK(odd.spread() == Approx(4.0 / 3));
  CHECK(timing_from_samples({4, 1, 3, 2}).median_us == 2.5);
  CHECK_THROWS_AS(timing_from_samples({}), error);
}

TEST_CASE("a retry replaces the unsteady attempt, never pools with it", "[timing]") {
  // Attempt 1 is unsteady (IQR / median 0.17), attempt 2 steady and faster: the
  // figure is attempt 2's alone. A union would keep attempt 1's slow samples
  // for good, its median and spread above attempt 2's.
  const std::vector<std::vector<double>> attempts = {{10, 14, 12, 13, 11}, {10, 10.1, 10.2, 10.1, 10}};
  int made = 0;
  const SteadySamples kept = samples_until_steady([&] { return attempts[made++]; }, 3, 0.05);
  CHECK(made == 2);
  CHECK(kept.attempts == 2);
  CHECK(kept.steady);
  CHECK(kept.samples_us == attempts[1]);
  const Timing t = timing_from_samples(kept.samples_us);
  CHECK(t.median_us == 10.1);
  CHECK(t.max_us == 10.2);
  // A steady first attempt is the only one.
  made = 0;
  const SteadySamples first = samples_until_steady([&] { return attempts[1 - made++]; }, 3, 0.05);
  CHECK(made == 1);
  CHECK(first.samples_us == attempts[1]);
  // Never steady: max_attempts ran, and the last attempt's samples are kept, not all 15.
  made = 0;
  const std::vector<std::vector<double>> unsteady = {{10, 14, 12, 13, 11}, {20, 28, 24, 26, 22}, {5, 7, 6, 6.5, 5.5}};
  const SteadySamples last = samples_until_steady([&] { return unsteady[made++]; }, 3, 0.05);
  CHECK(made == 3);
  CHECK(last.attempts == 3);
  CHECK_FALSE(last.steady);
  CHECK(last.samples_us == unsteady[2]);
}

TEST_CASE("one outlier in an attempt does not make it unsteady", "[timing]") {
  // 30 samples within 1% and one 3x slower (a preempted replay): the range is
  // 200% of the median, the IQR about 0.5%; the attempt is kept as it is.
  std::vector<double> samples;
  for (int i = 0; i < 30; ++i) samples.push_back(10 + 0.1 * (i % 10) / 10);
  samples.push_back(30);
  REQUIRE(timing_from_samples(samples).spread() > 1);
  int made = 0;
  const SteadySamples kept = samples_until_steady(
      [&] {
        ++made;
        return samples;
      },
      3, 0.05);
  CHECK(made == 1);
  CHECK(kept.steady);
  CHECK(kept.samples_us.size() == 31);
}

TEST_CASE("a timing keeps the samples it is over, in the order taken", "[timing]") {
  const Timing t = timing_from_samples({5, 1, 3});
  CHECK(t.samples_us == std::vector<double>{5, 1, 3});
  CHECK(t.samples == 3);
}

// A rotation short of twice the L2 times a figure partly from L2: the
// regime would be L2-resident under another name.
TEST_CASE("the rotation takes the fewest copies whose bytes reach twice the L2", "[timing][rotation]") {
  constexpr std::int64_t kL2 = 60 << 20;  // an H200's
  for (const std::int64_t bytes : {std::int64_t{12288}, std::int64_t{331520}, std::int64_t{9863168},
                                   std::int64_t{18350080}, std::int64_t{50331648}, std::int64_t{56623104}}) {
    INFO(bytes);
    const RotationPlan plan = plan_rotation(bytes, kL2, {.max_copies = 1 << 20});
    const std::int64_t k = plan.rotation.copies;
    CHECK(plan.covers_twice_l2);
    CHECK(k * bytes >= 2 * kL2);       // covers twice the L2...
    CHECK((k - 1) * bytes < 2 * kL2);  // ...with no copy to spare
    CHECK(plan.rotation.working_set_bytes == k * bytes);
  }
  CHECK(plan_rotation(18350080, kL2).rotation.copies == 7);
  // A shape past twice the L2 by itself needs no other copy.
  CHECK(plan_rotation(3 * kL2, kL2).rotation.copies == 1);
  CHECK(plan_rotation(2 * kL2, kL2).rotation.copies == 1);
  // A limit stops a tiny shape short, and the plan says so.
  const RotationPlan capped = plan_rotation(12288, kL2);
  CHECK(capped.rotation.copies == RotationLimits{}.max_copies);
  CHECK_FALSE(capped.covers_twice_l2);
  const RotationPlan by_memory = plan_rotation(1 << 20, kL2, {.max_copies = 4096, .max_total_bytes = 8 << 20});
  CHECK(by_memory.rotation.copies == 8);
  CHECK_FALSE(by_memory.covers_twice_l2);
  CHECK_THROWS_AS(plan_rotation(0, kL2), error);
}

TEST_CASE("a rotated graph launches every copy equally often, at least launches_per_graph times",
          "[timing][rotation]") {
  CHECK(rotated_launches(1, 20) == 20);
  CHECK(rotated_launches(7, 20) == 21);
  CHECK(rotated_launches(380, 20) == 380);
  CHECK(rotated_launches(4096, 20) == 4096);
  for (int k = 1; k < 50; ++k) {
    const int n = rotated_launches(k, 20);
    CHECK(n % k == 0);
    CHECK(n >= 20);
    CHECK(n - k < 20);
  }
}

TEST_CASE("a replay holds fewer launches only for a shape that keeps the GPU busy min_replay_us with fewer",
          "[timing][rotation]") {
  const double h100 = 3.35e12;  // bytes a second
  // A DiT shape of 57 MB a launch: 20 launches take 340 us at the peak, under 500 us: all 20.
  CHECK(replay_launches(57'000'000, h100, 20, 500) == 20);
  // The per-token shape's 670 MB: 200 us a launch, so 3 launches last 500 us.
  CHECK(replay_launches(670'000'000, h100, 20, 500) == 3);
  // A launch that alone lasts past min_replay_us: one a replay, never none.
  CHECK(replay_launches(4'000'000'000, h100, 20, 500) == 1);
  // Just enough bytes in 5 launches: 5, not 6.
  CHECK(replay_launches(336'000'000, h100, 20, 500) == 5);
  // Never more than launches_per_graph.
  CHECK(replay_launches(1'000, h100, 20, 500) == 20);
  CHECK(replay_launches(1'000, h100, 7, 500) == 7);
  // 0 (the rule off), no bandwidth reported, or nothing moved: launches_per_graph.
  CHECK(replay_launches(670'000'000, h100, 20, 0) == 20);
  CHECK(replay_launches(670'000'000, 0, 20, 500) == 20);
  CHECK(replay_launches(0, h100, 20, 500) == 20);
  // Never fewer launches for a larger min_replay_us, nor for a smaller shape.
  for (std::int64_t bytes = 1'000'000; bytes < 8'000'000'000; bytes *= 3) {
    INFO(bytes);
    CHECK(replay_launches(bytes, h100, 20, 500) <= replay_launches(bytes, h100, 20, 1000));
    CHECK(replay_launches(bytes, h100, 20, 500) >= replay_launches(bytes * 3, h100, 20, 500));
    // Enough launches to last min_replay_us, unless capped at 20.
    const int n = replay_launches(bytes, h100, 20, 500);
    CHECK((n == 20 || static_cast<double>(n) * static_cast<double>(bytes) >= 500e-6 * h100));
    CHECK((n == 1 || static_cast<double>(n - 1) * static_cast<double>(bytes) < 500e-6 * h100));
  }
}

TEST_CASE("the rotated graphs cycle through every copy in order, each replay at most launches_per_graph launches",
          "[timing][rotation]") {
  // Few copies: one graph, as rotated_launches says.
  CHECK(rotated_graphs(7, 20) ==
        std::vector<std::vector<int>>{{0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6}});
  CHECK(rotated_graphs(1, 3) == std::vector<std::vector<int>>{{0, 0, 0}});
  for (const int k : {21, 40, 41, 380, 4096}) {
    INFO(k);
    const auto graphs = rotated_graphs(k, 20);
    CHECK(graphs.size() == static_cast<std::size_t>((k + 19) / 20));
    int next = 0;
    std::size_t shortest = 20, longest = 0;
    for (const auto& graph : graphs) {
      shortest = std::min(shortest, graph.size());
      longest = std::max(longest, graph.size());
      for (const int copy : graph) CHECK(copy == next++);
    }
    CHECK(next == k);  // replayed in turn, every copy once per cycle
    CHECK(longest <= 20);
    CHECK(longest - shortest <= 1);
  }
}

TEST_CASE("relative_range: (max - min) / median of repeated figures", "[timing]") {
  CHECK(relative_range({1.0, 1.1, 0.9}) == Approx(0.2));
  CHECK(relative_range({2.0}) == 0);
  CHECK(relative_range({}) == 0);
}
