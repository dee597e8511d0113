// The runtime's table of plans (runtime/plan_table.hpp) without a GPU: a key
// is resolved once however many threads ask; a slow first sight of one key
// does not hold up another's; a resolution that throws is tried again; the
// table holds at most its bound of keys; a thread's repeat of a key it found
// hashes nothing, and never reads another table's values.
#include <atomic>
#include <chrono>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "runtime/plan_table.hpp"

using namespace exactune;

namespace {

using Table = PlanTable<int, std::string, std::hash<int>>;

// A hash that counts its calls.
std::atomic<int> hashes{0};
struct CountingHash {
  std::size_t operator()(int v) const {
    ++hashes;
    return std::hash<int>()(v);
  }
};

// Long enough that only a deadlock reaches it: a test of order, not of speed.
constexpr auto kDeadlock = std::chrono::seconds(60);

}  // namespace

TEST_CASE("a key is resolved once, however many threads ask at once", "[runtime][plans]") {
  Table table(16);
  std::atomic<int> resolved{0};
  std::promise<void> go;
  std::shared_future<void> start = go.get_future().share();
  std::vector<std::future<const std::string*>> callers;
  for (int t = 0; t < 8; ++t) {
    callers.push_back(std::async(std::launch::async, [&] {
      start.wait();
      return table.get(7, [&] {
        ++resolved;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return std::string("plan 7");
      });
    }));
  }
  go.set_value();
  std::vector<const std::string*> values;
  for (auto& c : callers) values.push_back(c.get());
  CHECK(resolved == 1);
  for (const std::string* v : values) {
    REQUIRE(v != nullptr);
    CHECK(v == values.front());  // one value, where it stays
    CHECK(*v == "plan 7");
  }
  CHECK(table.find(7) == values.front());
  CHECK(table.find(8) == nullptr);
}

TEST_CASE("a slow first sight of one key holds up no other key", "[runtime][plans]") {
  Table table(16);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> entered;
  auto slow = std::async(std::launch::async, [&] {
    return table.get(1, [&] {
      entered.set_value();
      released.wait();  // compiling, for as long as the other key needs
      return std::string("slow");
    });
  });
  entered.get_future().wait();
  // While key 1 resolves: key 2 resolves and is found, and key 1 is not found yet.
  auto other = std::async(std::launch::async, [&] { return table.get(2, [] { return std::string("fast"); }); });
  REQUIRE(other.wait_for(kDeadlock) == std::future_status::ready);
  CHECK(*other.get() == "fast");
  CHECK(*table.find(2) == "fast");
  CHECK(table.find(1) == nullptr);
  release.set_value();
  REQUIRE(slow.wait_for(kDeadlock) == std::future_status::ready);
  CHECK(*slow.get() == "slow");
}

TEST_CASE("a resolution that throws is not kept: the next call tries again", "[runtime][plans]") {
  Table table(16);
  int tries = 0;
  const auto flaky = [&] {
    if (++tries == 1) throw std::runtime_error("out of memory");
    return std::string("second try");
  };
  CHECK_THROWS_WITH(table.get(3, flaky), "out of memory");
  CHECK(table.find(3) == nullptr);
  const std::string* value = table.get(3, flaky);
  REQUIRE(value != nullptr);
  CHECK(*value == "second try");
  CHECK(tries == 2);
  CHECK(*table.get(3, flaky) == "second try");
  CHECK(tries == 2);
}

TEST_CASE("the table holds at most its bound of keys; past it a new key is not resolved", "[runtime][plans]") {
  Table table(3);
  int resolved = 0;
  const auto resolve = [&] { return std::to_string(++resolved); };
  for (int key = 0; key < 3; ++key) REQUIRE(table.get(key, resolve) != nullptr);
  CHECK(table.get(3, resolve) == nullptr);
  CHECK(table.get(4, resolve) == nullptr);
  CHECK(resolved == 3);
  CHECK(table.size() == 3);
  CHECK(table.capacity() == 3);
  CHECK(*table.get(1, resolve) == "2");  // the keys held are still served
}

TEST_CASE("a thread's repeat of a key it found hashes nothing, and never reads another table's", "[runtime][plans]") {
  std::optional<PlanTable<int, std::string, CountingHash>> table;
  table.emplace(8);
  const auto resolve = [] { return std::string("first table"); };
  REQUIRE(*table->get(1, resolve) == "first table");
  REQUIRE(*table->get(1, resolve) == "first table");  // found in the map: remembered
  const int before = hashes.load();
  for (int i = 0; i < 5; ++i) CHECK(*table->get(1, resolve) == "first table");
  CHECK(hashes.load() == before);
  table.emplace(8);  // same storage, a new table
  CHECK(table->find(1) == nullptr);
  CHECK(*table->get(1, [] { return std::string("second table"); }) == "second table");
}
