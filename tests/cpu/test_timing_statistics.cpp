// The measurement machinery that needs no GPU: Google Benchmark driven with
// manual time, and the statistics over its repetitions.
#include <stdexcept>

#include "time/benchmark_runner.hpp"
#include "catch.hpp"
#include <exactune/error.hpp>
#include "time/statistics.hpp"

using namespace exactune;

TEST_CASE("each repetition's mean of the manual sample times comes back, in microseconds", "[timing]") {
  int calls = 0;
  // Repetition r takes samples 10r+1 .. 10r+4 us: its mean is 10r + 2.5.
  const auto samples = run_repetitions("fake", 4, 3, [&] {
    const int r = calls / 4, i = calls % 4;
    ++calls;
    return 10.0 * r + 1 + i;
  });
  CHECK(calls == 12);
  REQUIRE(samples.size() == 3);
  CHECK(samples[0] == Approx(2.5));
  CHECK(samples[1] == Approx(12.5));
  CHECK(samples[2] == Approx(22.5));
}

TEST_CASE("a failing sampler is an error naming the figure", "[timing]") {
  try {
    run_repetitions("shape/variant/hot", 2, 2, []() -> double { throw std::runtime_error("launch failed"); });
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

TEST_CASE("unsteady attempts are repeated and every sample counts, not the luckiest attempt", "[timing]") {
  // Attempt 1 is unsteady and slow, attempt 2 steady and fast: the median is over both.
  const std::vector<std::vector<double>> attempts = {{10, 14, 12, 13, 11}, {10, 10.1, 10.2, 10.1, 10}};
  int made = 0;
  const std::vector<double> all = samples_until_steady([&] { return attempts[made++]; }, 3, 0.05);
  CHECK(made == 2);
  CHECK(all.size() == 10);
  const Timing t = timing_from_samples(all);
  CHECK(t.median_us == Approx(10.15));
  CHECK(t.median_us > timing_from_samples(attempts[1]).median_us);
  // A steady first attempt is the only one.
  made = 1;
  CHECK(samples_until_steady([&] { return attempts[made]; }, 3, 0.05).size() == 5);
  // Never steady: max_attempts, all kept.
  CHECK(samples_until_steady([&] { return attempts[0]; }, 3, 0.05).size() == 15);
}
