// The exactness gate's policy with fakes in place of kernels: a signature is
// verified once and then runs fused only; a mismatch or a failure of the fused
// path closes the gate for good (one warning, the reason kept); during capture
// an unverified signature runs the framework's chain; a path that does not
// serve its inputs gives no verdict.
#include <optional>
#include <stdexcept>
#include <string>
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

}  // namespace

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

TEST_CASE("a failing fused path closes the gate and the framework answers", "[gate]") {
  ExactnessGate<int> gate;
  Fakes f;
  f.throws = true;
  CHECK(f.call(gate, 3) == 6);
  CHECK_FALSE(gate.enabled());
  CHECK(gate.disabled_because() == "the fused path failed: launch failed");
  // Also once verified: a failure later closes it too.
  ExactnessGate<int> verified_first;
  Fakes g;
  CHECK(g.call(verified_first, 3) == 6);
  g.throws = true;
  CHECK(g.call(verified_first, 3) == 6);
  CHECK_FALSE(verified_first.enabled());
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

TEST_CASE("inputs the fused path does not serve run the framework with no verdict", "[gate]") {
  ExactnessGate<int> gate;
  Fakes f;
  f.serves = false;
  CHECK(f.call(gate, 3) == 6);
  CHECK(f.call(gate, 3) == 6);
  CHECK(gate.enabled());
  CHECK(gate.verified_count() == 0);
  CHECK(f.framework_calls == 2);
}
