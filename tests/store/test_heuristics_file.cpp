// heuristics.yaml, the file a table is read from: what the chooser's table of
// the recorded sweep (support/recorded_sweep.hpp) writes, that it reads back
// to the same text and figures, and that every error in it names the file
// and line.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "choose/chooser.hpp"
#include "store/heuristics.hpp"
#include "store/heuristics_file.hpp"
#include "support/input_refusal.hpp"
#include "support/recorded_sweep.hpp"

using namespace exactune;
using namespace recorded;

namespace {

std::string parse_error(const std::string& yaml) {
  return error_of([&] { parse_heuristics_yaml(yaml, "h.yaml"); });
}

}  // namespace

TEST_CASE("heuristics.yaml says where it was chosen from and how, and round-trips", "[heuristics_file]") {
  const Heuristics chosen = choose_heuristics(recorded_sweep());
  const std::string yaml = to_heuristics_yaml(chosen);
  INFO(yaml);
  CHECK(yaml.rfind("# exactune heuristics: chosen by exactune from reports/nvidia-h200/toy_double/sweep.yaml "
                   "(NVIDIA H200); the header and JSON are generated from this file.\n",
                   0) == 0);
  CHECK(contains(yaml, "# For a GPU without a table: one warp, 4 elements a step, serves any row"));
  CHECK(contains(yaml, "# Policy rotated: variants are ranked by the rotated hot median"));
  CHECK(contains(yaml, "  choices:\n    - length: 2240\n      max_rows: 275\n"));  // the family's size parameter
  CHECK(contains(yaml, "params: {threads: \"32\", vector: \"4\", result: right}"));

  const Heuristics parsed = parse_heuristics_yaml(yaml, "h.yaml");
  CHECK(to_heuristics_yaml(parsed) == yaml);
  REQUIRE(parsed.device.choices.size() == chosen.device.choices.size());
  for (std::size_t i = 0; i < parsed.device.choices.size(); ++i) {
    CHECK(parsed.device.choices[i].median_us == chosen.device.choices[i].median_us);
    CHECK(parsed.device.choices[i].margin == chosen.device.choices[i].margin);
    CHECK(parsed.device.choices[i].max_rows == chosen.device.choices[i].max_rows);
    CHECK(parsed.device.choices[i].same_as_best == chosen.device.choices[i].same_as_best);
  }
}

TEST_CASE("heuristics.yaml records each choice's same-as-best set, and still reads version 1 without it",
          "[heuristics_file]") {
  Heuristics chosen = choose_heuristics(recorded_sweep());
  // A set of several names, as a sweep with samples makes, quoted where a name needs it.
  chosen.device.choices[0].same_as_best = {kDefault, kWide, "t64_v8_right: odd"};
  const std::string yaml = to_heuristics_yaml(chosen);
  INFO(yaml);
  CHECK(contains(yaml, "format_version: 2\n"));
  CHECK(
      contains(yaml, "      shared: true\n      same_as_best: [t32_v4_right, t64_v8_right, \"t64_v8_right: odd\"]\n"));
  CHECK(contains(yaml, "# Policy rotated:"));
  CHECK(contains(yaml, "same_as_best: the bit-exact variants"));
  const Heuristics parsed = parse_heuristics_yaml(yaml, "h.yaml");
  CHECK(parsed.format_version == 2);
  REQUIRE(parsed.device.choices.size() == chosen.device.choices.size());
  for (std::size_t i = 0; i < parsed.device.choices.size(); ++i) {
    CHECK(parsed.device.choices[i].same_as_best == chosen.device.choices[i].same_as_best);
  }
  CHECK(to_heuristics_yaml(parsed) == yaml);

  // Version 1, written before the sets were recorded: read with none, and written back as it was.
  std::string old = yaml;
  old.replace(old.find("format_version: 2"), std::string("format_version: 2").size(), "format_version: 1");
  for (std::size_t at = old.find("      same_as_best: "); at != std::string::npos;
       at = old.find("      same_as_best: ")) {
    old.erase(at, old.find('\n', at) + 1 - at);
  }
  const Heuristics v1 = parse_heuristics_yaml(old, "h.yaml");
  CHECK(v1.format_version == 1);
  for (const Choice& c : v1.device.choices) CHECK(c.same_as_best.empty());
  CHECK(v1.device.choices[2].chosen.variant == parsed.device.choices[2].chosen.variant);
  CHECK(to_heuristics_yaml(v1) == old);
  // A version 1 file has no sets to hold.
  std::string mixed = old;
  mixed.insert(mixed.find("      shared: true\n") + std::string("      shared: true\n").size(),
               "      same_as_best: [t32_v4_right]\n");
  CHECK(contains(parse_error(mixed), "same_as_best is of format_version 2"));
}

TEST_CASE("errors in heuristics.yaml name the file and line", "[heuristics_file]") {
  const std::string yaml = to_heuristics_yaml(choose_heuristics(recorded_sweep()));
  struct Edit {
    const char* from;
    const char* to;
    const char* what;
    int offset = 0;  // the error names the line of `from`, or the one this many lines below it
  };
  const Edit edits[] = {
      {"      shared: true", "      shared: maybe", "shared must be true or false"},
      {"median_us: 5.05", "median_us: fast", "median_us must be a number"},
      {"sm_count: 132", "sm_count: -1", "sm_count must be > 0"},
      {"arch: sm_90", "arch: hopper", "no GPU architecture"},
      {"format_version: 2", "format_version: 7", "reads versions 1 to 2"},
      {"format_version: 2", "format_version: 0", "reads versions 1 to 2"},
      {"      same_as_best: [t64_v8_right]\n", "", "missing key 'same_as_best'", -9},  // the choice's line
      {"same_as_best: [t64_v8_right]", "same_as_best: [t64_v8_right, t32_v4_right]", "once, by name"},
      {"same_as_best: [t64_v8_right]", "same_as_best: t64_v8_right", "must be a list"},
      {"family: toy_double", "family: rms_norm", "family: no kernel family named 'rms_norm'"},
      {"    - length: 3072\n", "    - length: -3\n", "length must be > 0"},
      {"    - length: 3072\n", "    - size: 3072\n", "unknown key 'size' in a choice"},
      // The device default's params come first; threads: "32" first appears in the first choice.
      {"result: right", "result: planted_wrong", "params spell variant"},
      {"threads: \"32\"", "threads: thirty-two", "threads 'thirty-two' is not one of"},
      {"threads: \"32\", vector: \"4\"", "vector: \"4\", threads: \"32\"", "in this order"},
      {"      shape: edge-37\n", "      shape: edge-37\n      colour: blue\n", "unknown key 'colour'", 1},
      {"      shape: edge-37\n", "      shape: edge-37\n      shape: again\n", "appears twice", 1},
      {"      max_rows: 4096\n", "      max_rows: 100\n", "does not ascend"},
      {"      median_us: 30.0\n", "      median_us: 30.0\n      max_rows: 9999999\n", "must have no max_rows", 1},
      {"      margin: 0.01\n", "", "runner_up and margin come together", -1},
  };
  for (const Edit& e : edits) {
    const auto [text, line] = edited(yaml, e.from, e.to);
    const std::string message = parse_error(text);
    INFO(e.from << " -> " << e.to << ": " << message);
    CHECK(message.rfind(fmt::format("h.yaml:{}: ", line + e.offset), 0) == 0);
    CHECK(contains(message, e.what));
  }
  CHECK(contains(parse_error("device: [1"), "h.yaml:"));
}
