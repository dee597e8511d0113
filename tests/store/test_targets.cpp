// targets.yaml, the targets summary.md sets against a sweep: every error in it
// names the file and line.
#include <string>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "store/targets.hpp"

using namespace exactune;

TEST_CASE("targets.yaml errors name the file and line", "[targets]") {
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
