// The verify stage's builds as their compile outcomes arrive from the compile's
// thread (verify/arriving_builds.hpp): a wait ends with its own build's
// outcome, in whatever order they come, and a compile that stops on an error
// of its own ends every wait still open with that error.
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "verify/arriving_builds.hpp"

using namespace exactune;

namespace {

std::vector<VariantBuild> three_builds() {
  std::vector<VariantBuild> builds(3);
  for (std::size_t i = 0; i < builds.size(); ++i) builds[i].variant.name = "v" + std::to_string(i);
  return builds;
}

CompileOutcome outcome_named(const std::string& log) {
  CompileOutcome o;
  o.ok = true;
  o.log = log;
  return o;
}

}  // namespace

TEST_CASE("a wait for a build ends once its own outcome arrives, in any order", "[verify][arriving]") {
  std::vector<VariantBuild> builds = three_builds();
  ArrivingBuilds arriving(builds);
  std::future<std::string> waiter = std::async(std::launch::async, [&] {
    arriving.await(1);
    return builds[1].outcome.log;
  });
  // The others arrive first: the wait for build 1 goes on.
  arriving.arrive(2, outcome_named("two"));
  arriving.arrive(0, outcome_named("zero"));
  CHECK(waiter.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);
  arriving.arrive(1, outcome_named("one"));
  CHECK(waiter.get() == "one");
  // Arrived already: no wait.
  arriving.await(0);
  CHECK(builds[0].outcome.log == "zero");
  CHECK(builds[2].outcome.ok);
}

TEST_CASE("a compile that fails ends the open waits with its error, and arrived builds stay readable",
          "[verify][arriving]") {
  std::vector<VariantBuild> builds = three_builds();
  ArrivingBuilds arriving(builds);
  arriving.arrive(0, outcome_named("zero"));
  std::future<void> waiter = std::async(std::launch::async, [&] { arriving.await(2); });
  arriving.fail(std::make_exception_ptr(std::runtime_error("the cache folder is gone")));
  CHECK_THROWS_WITH(waiter.get(), "the cache folder is gone");
  CHECK_THROWS_WITH(arriving.await(1), "the cache folder is gone");
  arriving.await(0);
  CHECK(builds[0].outcome.log == "zero");
}

TEST_CASE("an outcome or a wait for a build that is not there is refused, naming both counts", "[verify][arriving]") {
  std::vector<VariantBuild> builds = three_builds();
  ArrivingBuilds arriving(builds);
  CHECK_THROWS_AS(arriving.arrive(3, outcome_named("three")), error);
  CHECK_THROWS_WITH(arriving.await(7), Catch::Contains("no build 7 of 3"));
}
