// The exactness gate's policy with fakes in place of kernels: a signature is
// verified once and then runs fused only; a mismatch closes the gate for good
// (one warning, the reason kept); a failure of the fused path runs the
// framework's chain for that call and is counted; during capture an unverified
// signature runs the framework's chain; a path that does not serve its inputs
// gives no verdict, and its signature is remembered (a bounded number); a
// thread's repeat of a verified signature is routed with no hash (so no lock),
// and what a thread remembers never outlives a reset or its gate.
#include <atomic>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <exactune/exactness_gate.hpp>

#include "catch.hpp"

using exactune::ExactnessGate;

namespace {

// A fused function and the framework's chain on ints, counting their calls.
struct Fakes {
  int fused_calls = 0;
  int framework_calls = 0;
  std::vector<std::string> warnings;
  int wrong_from = 1000;  // the fused path is wrong for inputs >= this
  bool throws = false;
  bool serves = true;

  std::optional<int> fused(int input) {
    ++fused_calls;
    if (throws) throw std::runtime_error("launch failed");
    if (!serves) return std::nullopt;
    return input >= wrong_from ? input + 1 : input * 2;
  }
  int framework(int input) {
    ++framework_calls;
    return input * 2;
  }
  int call(ExactnessGate<int>& gate, int input, bool capturing = false) {
    return gate.call(
        input, [&] { return capturing; }, [&] { return fused(input); }, [&] { return framework(input); },
        [](int a, int b) { return a == b ? std::string() : "fused " + std::to_string(a) + " != " + std::to_string(b); },
        [&](const std::string& why) { warnings.push_back(why); });
  }
};

// A hash that counts its calls: a lookup in the gate's sets hashes, a call
// routed by the thread's memory does not.
std::atomic<int> hashes{0};
struct CountingHash {
  std::size_t operator()(int v) const {
    ++hashes;
    return std::hash<int>()(v);
  }
};

template <class Gate>
int call_counted(Gate& gate, Fakes& f, int input) {
  return gate.call(
      input, [] { return false; }, [&] { return f.fused(input); }, [&] { return f.framework(input); },
      [](int a, int b) { return a == b ? std::string() : "differs"; },
      [&](const std::string& why) { f.warnings.push_back(why); });
}

}  // namespace

TEST_CASE("a thread's repeat of a verified signature is routed fused with no hash, and forgets a reset gate",
          "[gate]") {
  ExactnessGate<int, CountingHash> gate;
  Fakes f;
  CHECK(call_counted(gate, f, 3) == 6);  // verified
  const int after_verification = hashes.load();
  for (int i = 0; i < 5; ++i) CHECK(call_counted(gate, f, 3) == 6);
  CHECK(hashes.load() == after_verification);
  CHECK(f.fused_calls == 6);
  CHECK(f.framework_calls == 1);

  // More signatures than a thread remembers: each still runs fused once verified.
  for (int round = 0; round < 3; ++round) {
    for (int input = 10; input < 16; ++input) CHECK(call_counted(gate, f, input) == input * 2);
  }
  CHECK(f.framework_calls == 1 + 6);

  // Another thread has no memory of its own yet: it finds the signature in the set.
  std::thread([&] {
    Fakes g;
    const int before = hashes.load();
    CHECK(call_counted(gate, g, 3) == 6);
    CHECK(g.framework_calls == 0);
    CHECK(hashes.load() > before);
  }).join();

  // A reset voids every thread's memory: the signature is verified again.
  gate.reset();
  CHECK(call_counted(gate, f, 3) == 6);
  CHECK(f.framework_calls == 1 + 6 + 1);
}

TEST_CASE("a gate made where another was does not take the other's verified signatures", "[gate]") {
  std::optional<ExactnessGate<int>> gate;
  Fakes f;
  gate.emplace();
  CHECK(f.call(*gate, 3) == 6);
  CHECK(f.call(*gate, 3) == 6);
  CHECK(f.framework_calls == 1);
  gate.emplace();  // same storage, a new gate
  CHECK(f.call(*gate, 3) == 6);
  CHECK(f.framework_calls == 2);  // verified anew
  CHECK(gate->verified_count() == 1);
}

TEST_CASE("a closed gate runs the framework even for a signature its thread remembers", "[gate]") {
  ExactnessGate<int> gate;
  Fakes f;
  f.call(gate, 3);
  f.call(gate, 3);
  f.call(gate, 2000);  // wrong on purpose: closes the gate
  REQUIRE_FALSE(gate.enabled());
  const int fused_before = f.fused_calls;
  CHECK(f.call(gate, 3) == 6);
  CHECK(f.fused_calls == fused_before);
}

TEST_CASE("a signature is verified once, then runs the fused path only", "[gate]") {
  ExactnessGate<int> gate;
  Fakes f;
  CHECK(f.call(gate, 3) == 6);
  CHECK(f.fused_calls == 1);
  CHECK(f.framework_calls == 1);  // the verification
  CHECK(gate.verified_count() == 1);
  for (int i = 0; i < 5; ++i) CHECK(f.call(gate, 3) == 6);
  CHECK(f.fused_calls == 6);
  CHECK(f.framework_calls == 1);
  CHECK(gate.enabled());
}

TEST_CASE("a fused path that mismatches on purpose is disabled for good", "[gate]") {
  ExactnessGate<int> gate;
  Fakes f;
  f.wrong_from = 10;
  CHECK(f.call(gate, 3) == 6);    // verified
  CHECK(f.call(gate, 10) == 20);  // mismatch: the framework's answer, never the wrong one
  CHECK_FALSE(gate.enabled());
  CHECK(gate.disabled_because() == "fused 11 != 20");
  REQUIRE(f.warnings.size() == 1);
  CHECK(f.warnings.front() == "fused 11 != 20");
  const int fused_before = f.fused_calls;
  // Even the signature verified before, and a correct one, run the framework now.
  CHECK(f.call(gate, 3) == 6);
  CHECK(f.call(gate, 4) == 8);
  CHECK(f.fused_calls == fused_before);
  CHECK(f.warnings.size() == 1);
  gate.reset();
  CHECK(gate.enabled());
  CHECK(gate.verified_count() == 0);
}

TEST_CASE("a failing fused path runs the framework for that call, is counted, and leaves the gate open", "[gate]") {
  ExactnessGate<int> gate;
  Fakes f;
  f.throws = true;  // out of memory, say: no verdict on the bits
  CHECK(f.call(gate, 3) == 6);
  CHECK(gate.enabled());
  CHECK(gate.failure_count() == 1);
  CHECK(gate.last_failure() == "the fused path failed: launch failed");
  CHECK(f.warnings.empty());
  // The next call tries the fused path again, and verifies it once it works.
  f.throws = false;
  CHECK(f.call(gate, 3) == 6);
  CHECK(gate.verified_count() == 1);
  // Once verified, a failure runs the framework for that call only.
  f.throws = true;
  CHECK(f.call(gate, 3) == 6);
  CHECK(gate.enabled());
  CHECK(gate.failure_count() == 2);
  f.throws = false;
  const int framework_before = f.framework_calls;
  CHECK(f.call(gate, 3) == 6);
  CHECK(f.framework_calls == framework_before);  // fused only again
}

TEST_CASE("during capture an unverified signature runs the framework and is not verified", "[gate]") {
  ExactnessGate<int> gate;
  Fakes f;
  CHECK(f.call(gate, 3, /*capturing=*/true) == 6);
  CHECK(f.fused_calls == 0);
  CHECK(gate.verified_count() == 0);
  CHECK(f.call(gate, 3) == 6);                      // verified outside capture
  CHECK(f.call(gate, 3, /*capturing=*/true) == 6);  // and then fused under capture
  CHECK(f.fused_calls == 2);
  CHECK(f.framework_calls == 2);
}

TEST_CASE("inputs the fused path does not serve run the framework with no verdict, and are remembered", "[gate]") {
  ExactnessGate<int> gate(/*remember_at_most=*/2);
  Fakes f;
  f.serves = false;
  CHECK(f.call(gate, 3) == 6);
  CHECK(f.call(gate, 3) == 6);
  CHECK(gate.enabled());
  CHECK(gate.verified_count() == 0);
  CHECK(f.framework_calls == 2);
  CHECK(f.fused_calls == 1);  // the second call went straight to the framework
  CHECK(gate.unserved_count() == 1);
  // At most two are remembered: a third signature asks the fused path each time.
  CHECK(f.call(gate, 4) == 8);
  CHECK(f.call(gate, 5) == 10);
  CHECK(f.call(gate, 5) == 10);
  CHECK(gate.unserved_count() == 2);
  CHECK(f.fused_calls == 4);
  gate.reset();
  CHECK(gate.unserved_count() == 0);
}
