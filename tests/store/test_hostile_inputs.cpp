// Hostile and broken input files (issue 13, "Reliability"): every reader of a
// user's file (shape files, sweep.yaml, heuristics.yaml, targets.yaml, the
// record of verified defaults, the gate's inputs) keeps to its bounds and
// refuses what it cannot read with one located line, "<file>:<line>: <what>",
// and the writers escape every string they write. Each finding of the issue
// is one test case here; tests/fuzz/ searches for more. The files are the toy
// family's (tests/toy_family), the commands run in the CLI of the toy family.
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <exactune/error.hpp>
#include <exactune/shapes.hpp>
#include <exactune/space.hpp>

#include "catch.hpp"
#include "choose/chooser.hpp"
#include "shapes/shape_file.hpp"
#include "store/chooser_policy.hpp"
#include "store/defaults_record.hpp"
#include "store/heuristics.hpp"
#include "store/heuristics_file.hpp"
#include "store/sweep_file.hpp"
#include "store/targets.hpp"
#include "support/handmade_sweep.hpp"
#include "support/input_refusal.hpp"
#include "support/run_cli.hpp"
#include "support/yaml_readers.hpp"
#include "toy_family/toy_family.hpp"
#include "util/text_file.hpp"
#include "util/yaml_screen.hpp"

using namespace exactune;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }
bool starts_with(const std::string& text, std::string_view part) { return text.rfind(part, 0) == 0; }

const KernelFamily& family() { return exactune_test::toy_family(); }

std::string sweep_refusal(const std::string& text) {
  return refusal([&] { parse_sweep_yaml(text, "t.yaml"); });
}

// One shape, two variants of the space, timed and exact: a sweep every reader
// takes. At length 100 the space excludes some variants.
SweepResults small_sweep() {
  SweepResults r = timed_sweep_header(family());
  ShapeResult s;
  s.shape = exactune_test::toy_shape("small", 2048, 100, 0.5);
  s.shape.model = "Toy small";
  s.bytes_moved = family().bytes_moved(s.shape);
  s.copy_rotated = Timing{4.0, 3.9, 4.1, 5};
  const std::vector<Variant> variants = valid_variants(family(), s.shape.size);
  for (std::size_t i = 0; i < 2; ++i) {
    s.variants.push_back(exact_timed_variant(variants[i], 10.0 + static_cast<double>(i)));
  }
  r.shapes = {s};
  return r;
}

class TempDir {
 public:
  explicit TempDir(std::string_view name)
      : path_(fs::temp_directory_path() / fmt::format("exactune_hostile_{}_{}", name, ::getpid())) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  fs::path write(const std::string& name, std::string_view text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
    return path_ / name;
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The CLI's answer to bad input: exit 2 and one line naming the file and a line of it.
void check_one_located_line(const CliResult& r, const fs::path& file) {
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_FALSE(contains(r.output, "internal error"));
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  const std::string prefix = fmt::format("exactune: error: {}:", file.string());
  REQUIRE(starts_with(r.output, prefix));
  CHECK(std::isdigit(static_cast<unsigned char>(r.output[prefix.size()])));
}

}  // namespace

TEST_CASE("a file of one comma is refused at once, on its line, by list, report, gate and emit-header", "[hostile]") {
  const TempDir dir("comma");
  const fs::path comma = dir.write("comma.yaml", ",");
  const std::string expected = fmt::format(
      "exactune: error: {}:1: YAML syntax error: unexpected ',' outside a flow list or map\n", comma.string());
  for (const std::string& command :
       {fmt::format("list --shapes '{}'", comma.string()),
        fmt::format("report --from '{}' --out '{}'", comma.string(), (dir.path() / "out").string()),
        fmt::format("gate --baseline '{0}' --candidate '{0}'", comma.string()),
        fmt::format("emit-header --from '{}'", comma.string())}) {
    const CliResult r = run_toy_cli(command);
    INFO(command << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output == expected);
  }
  for (const auto& [name, read] : yaml_readers()) {
    INFO(name);
    CHECK(refusal([&] { read(",\n"); }) == "t.yaml:1: YAML syntax error: unexpected ',' outside a flow list or map");
    CHECK(starts_with(refusal([&] { read("a: 1\n}"); }), "t.yaml:2: "));
  }
}

TEST_CASE("every reader refuses a file past its bounds: size, nesting, anchors and aliases, node count", "[hostile]") {
  for (const auto& [name, read] : yaml_readers()) {
    INFO(name);
    CHECK(
        refusal([&] { read(std::string(kMaxInputFileBytes + 1, ' ')); }) ==
        fmt::format("t.yaml:1: the file holds {} bytes, more than the 64 MiB exactune reads", kMaxInputFileBytes + 1));
    CHECK(refusal([&] { read("a:\n  b: " + std::string(kMaxYamlDepth + 5, '[')); }) ==
          fmt::format("t.yaml:2: lists and maps nest more than {} deep, deeper than exactune reads", kMaxYamlDepth));
    // A billion laughs: nine lines that yaml-cpp would share into 10^9 nodes.
    std::string laughs = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (int i = 1; i < 9; ++i) laughs += fmt::format("a{0}: &a{0} [*a{1}, *a{1}, *a{1}, *a{1}, *a{1}]\n", i, i - 1);
    CHECK(refusal([&] { read(laughs); }) == "t.yaml:1: anchors (&name) are not accepted: write each value out");
    CHECK(starts_with(refusal([&] { read("a: 1\nb: *a\n"); }), "t.yaml:2: "));
  }
  // The node count bounds memory whatever the nesting; load_document is every reader's way in.
  std::string many = "shapes: [";
  for (std::size_t i = 0; i <= kMaxYamlNodes; ++i) many += "1,";
  many += "]\n";
  CHECK(refusal([&] { parse_shapes(family(), many, "t.yaml"); }) ==
        fmt::format("t.yaml:1: the file holds more than {} YAML nodes, more than exactune reads", kMaxYamlNodes));

  // On disk the size is checked before anything is read: a sparse file costs nothing.
  const TempDir dir("large");
  const fs::path large = dir.write("large.yaml", "");
  fs::resize_file(large, kMaxInputFileBytes + 4096);
  CHECK(refusal([&] { read_sweep_file(large); }) ==
        fmt::format("{}: cannot read the sweep file: it holds {} bytes, more than the 64 MiB exactune reads",
                    large.string(), kMaxInputFileBytes + 4096));
}

TEST_CASE("only regular files are read: a FIFO and a device are refused without blocking or reading", "[hostile]") {
  const TempDir dir("fifo");
  const fs::path fifo = dir.path() / "shapes.yaml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Opening a FIFO without a writer would block forever: it is refused before it is opened.
  CHECK(refusal([&] { load_shapes_file(family(), fifo.string()); }) ==
        fifo.string() + ": cannot read the shape file: it is a FIFO (named pipe), not a regular file");
  CHECK(refusal([&] { read_sweep_file(fifo); }) ==
        fifo.string() + ": cannot read the sweep file: it is a FIFO (named pipe), not a regular file");
  CHECK(refusal([&] { load_heuristics_file("/dev/zero"); }) ==
        "/dev/zero: cannot read the heuristics file: it is a device, not a regular file");
  const CliResult r = run_toy_cli("list --shapes /dev/zero");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output == "exactune: error: /dev/zero: cannot read the shape file: it is a device, not a regular file\n");
  const CliResult from_fifo =
      run_toy_cli(fmt::format("report --from '{}' --out '{}'", fifo.string(), dir.path().string()));
  INFO(from_fifo.output);
  CHECK(from_fifo.exit_code == 2);
  CHECK(contains(from_fifo.output, "it is a FIFO"));
}

TEST_CASE("text that is not UTF-8, or holds a control character, is refused at its line and column", "[hostile]") {
  for (const auto& [name, read] : yaml_readers()) {
    INFO(name);
    CHECK(refusal([&] { read("shapes:\n  - name: caf\xe9\n"); }) ==
          "t.yaml:2:14: invalid UTF-8: byte 0xe9 does not start a valid character (the file must be UTF-8 text)");
    CHECK(refusal([&] { read(std::string("a: 1\nb: x\0y\n", 12)); }) ==
          "t.yaml:2:5: control character U+0000 is not allowed in a YAML file");
    // Overlong, surrogate and cut-short sequences are no UTF-8 either; valid text around them counts as characters.
    CHECK(starts_with(refusal([&] { read("a: \xc0\xaf\n"); }), "t.yaml:1:4: invalid UTF-8: byte 0xc0"));
    CHECK(starts_with(refusal([&] { read("a: \xc3\xa9\xed\xa0\x80\n"); }), "t.yaml:1:5: invalid UTF-8: byte 0xed"));
    CHECK(starts_with(refusal([&] { read("a: \xe2\x82"); }), "t.yaml:1:4: invalid UTF-8: byte 0xe2"));
    CHECK(starts_with(refusal([&] { read("a: \x1b[31m\n"); }), "t.yaml:1:4: control character U+001B"));
  }
}

TEST_CASE(
    "numbers out of range are refused on their line: threads 2147483648, NaN and negative times, "
    "samples 0, rows -2",
    "[hostile]") {
  const std::string text = to_sweep_yaml(small_sweep());
  REQUIRE_NOTHROW(parse_sweep_yaml(text, "t.yaml"));
  struct Damage {
    std::string_view from, to, what;
  };
  const Damage damages[] = {
      {"threads: \"32\"", "threads: \"2147483648\"",
       "params: threads '2147483648' is not one of 32, 64, 128, 256, 512"},
      {"rotated_median_us: 10.0", "rotated_median_us: .nan", "rotated_median_us must be a finite number, got .nan"},
      {"rotated_median_us: 10.0", "rotated_median_us: nan", "rotated_median_us must be a finite number, got nan"},
      {"rotated_median_us: 10.0", "rotated_median_us: -10.0", "rotated_median_us must be a number > 0, got -10.0"},
      {"rotated_min_us: 9.875", "rotated_min_us: 0.0", "rotated_min_us must be a number > 0, got 0.0"},
      {"cold_max_us: 12.125", "cold_max_us: .inf", "cold_max_us must be a finite number, got .inf"},
      {"rotated_samples: 5", "rotated_samples: 0", "rotated_samples must be at least 1, got 0"},
      {"copy_rotated_us: {median: 4.0, min: 3.9, max: 4.1, samples: 5}",
       "copy_rotated_us: {median: 4.0, min: 3.9, max: 4.1, samples: -3}", "samples must be at least 1, got -3"},
      {"rows: 2048", "rows: -2", "rows must be > 0"},
      {"rows: 2048", "rows: 2147483648", "rows 2147483648 is out of range"},
      {"scale: 0.5", "scale: .inf", "scale must be a finite number, got .inf"},
      {"registers: 40", "registers: -1", "registers must be at least 0, got -1"},
      {"wall_s: 1.5", "wall_s: -.inf", "wall_s must be a finite number, got -.inf"},
      {"sm_count: 132", "sm_count: 99999999999", "sm_count 99999999999 is out of range"},
      {"variant_count: 2", "variant_count: -1", "variant_count must be at least 0, got -1"},
      {"cases: \"8/8\"", "cases: \"7/8\"", "exact: true needs every case passed, got cases \"7/8\""},
  };
  for (const Damage& d : damages) {
    const auto [damaged, line] = edited(text, d.from, d.to);
    const std::string message = sweep_refusal(damaged);
    INFO(d.to << " => " << message);
    CHECK(starts_with(message, fmt::format("t.yaml:{}: ", line + (d.what.starts_with("exact:") ? -1 : 0))));
    CHECK(contains(message, d.what));
  }
  // The heuristics too: a NaN median, an int past its range.
  const std::string heuristics = to_heuristics_yaml(choose_heuristics(small_sweep()));
  const auto [large_sm_count, sm_line] = edited(heuristics, "sm_count: 132", "sm_count: 4294967296");
  CHECK(refusal([&] { parse_heuristics_yaml(large_sm_count, "h.yaml"); }) ==
        fmt::format("h.yaml:{}: sm_count 4294967296 is out of range", sm_line));
  const auto [large_size, size_line] = edited(heuristics, "    - length: 100", "    - length: 2147483648");
  CHECK(refusal([&] { parse_heuristics_yaml(large_size, "h.yaml"); }) ==
        fmt::format("h.yaml:{}: length 2147483648 is out of range", size_line));
  const std::size_t median = heuristics.find("median_us: ");
  REQUIRE(median != std::string::npos);
  const std::size_t end = heuristics.find('\n', median);
  const auto [nan_median, nan_line] = edited(heuristics, heuristics.substr(median, end - median), "median_us: .nan");
  CHECK(contains(refusal([&] { parse_heuristics_yaml(nan_median, "h.yaml"); }),
                 fmt::format("h.yaml:{}: median_us must be > 0", nan_line)));

  // Through the CLI: the value that once ended in "internal error: stoi".
  const TempDir dir("numbers");
  const fs::path file = dir.write("sweep.yaml", edited(text, "threads: \"32\"", "threads: \"2147483648\"").first);
  check_one_located_line(run_toy_cli(fmt::format("report --from '{}' --out '{}'", file.string(), dir.path().string())),
                         file);
}

TEST_CASE(
    "a sweep the reader takes gives heuristics that read back: a device's arch and names, shape names and "
    "medians are checked, and variants of an older space are never chosen",
    "[hostile]") {
  // Each found by the fuzzer (tests/fuzz/): the sweep was read, and the heuristics chosen from it were not.
  const std::string text = to_sweep_yaml(small_sweep());
  struct Damage {
    std::string_view from, to, what;
  };
  const Damage damages[] = {
      {"arch: sm_90", "arch: sm_*x90", "arch: 'sm_*x90' is no GPU architecture such as sm_80, sm_90 or sm_100a"},
      {"slug: nvidia-h200", "slug: \"\"", "slug must not be empty"},
      {"sm_count: 132", "sm_count: 0", "sm_count must be at least 1, got 0"},
      {"  - name: small", "  - name: \"\"", "name must not be empty"},
      {"rotated_median_us: 10.0", "rotated_median_us: 1.0e-300",
       "rotated_median_us must be from 0.001 to 1000000000 (1 ns to 1000 s), got 1.0e-300"},
      {"rotated_median_us: 10.0", "rotated_median_us: 1.0e300",
       "rotated_median_us must be from 0.001 to 1000000000 (1 ns to 1000 s), got 1.0e300"},
  };
  for (const Damage& d : damages) {
    const auto [damaged, line] = edited(text, d.from, d.to);
    INFO(d.to);
    CHECK(sweep_refusal(damaged) == fmt::format("t.yaml:{}: {}", line, d.what));
  }
  for (ChooserPolicy policy : {ChooserPolicy::rotated, ChooserPolicy::cold, ChooserPolicy::both}) {
    ChooserOptions options;
    options.policy = policy;
    const std::string yaml = to_heuristics_yaml(choose_heuristics(parse_sweep_yaml(text, "t.yaml"), options));
    CHECK_NOTHROW(parse_heuristics_yaml(yaml, "h.yaml"));
  }
  // Format 2 may record variants of an older space (other axes): read to be gated by name, never chosen from.
  std::string version2 =
      edited(edited(text, "exactune_sweep: 3", "exactune_sweep: 2").first, "    variant_count: 2\n", "").first;
  version2.erase(version2.find("# The last line"));
  version2 = edited(version2, "threads: \"32\", vector: \"4\", result: right", "threads: \"32\", result: right").first;
  const SweepResults old = parse_sweep_yaml(version2, "t.yaml");
  CHECK(old.shapes.at(0).variants.at(0).params.size() == 2);
  CHECK(contains(refusal([&] { choose_heuristics(old); }), "is of an older space of family toy_double"));
  const TempDir dir("older");
  const fs::path file = dir.write("sweep.yaml", version2);
  const CliResult r = run_toy_cli(fmt::format("report --from '{}' --out '{}'", file.string(), dir.path().string()));
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_FALSE(fs::exists(dir.path() / "heuristics.yaml"));
}

TEST_CASE("a sweep cut short anywhere or missing a variant is refused, one of format 2, without counts, still reads",
          "[hostile]") {
  const std::string text = to_sweep_yaml(small_sweep());
  CHECK(contains(text, "    variant_count: 2\n"));
  CHECK(text.ends_with("\nshape_count: 1\n"));
  // Every cut but the last newline's: the count on the last line goes, or reads as another number.
  for (std::size_t length = 0; length + 1 < text.size(); ++length) {
    INFO("cut after " << length << " bytes:\n" << text.substr(0, length));
    try {
      parse_sweep_yaml(text.substr(0, length), "t.yaml");
      FAIL("a sweep cut short was read");
    } catch (const input_error& e) {
      CHECK(starts_with(e.what(), "t.yaml:"));
    }
  }
  // A variant cut out of the middle: its shape's count no longer adds up.
  const std::size_t second = text.find("      - variant: ", text.find("      - variant: ") + 1);
  const std::size_t after = text.find("# The last line");
  std::string missing = text;
  missing.erase(second, after - second);
  const auto [_, count_line] = edited(text, "    variant_count: 2", "");
  CHECK(sweep_refusal(missing) ==
        fmt::format("t.yaml:{}: variant_count is 2, but shape 'small' holds 1: the file is cut short or was "
                    "edited by hand",
                    count_line));
  CHECK(contains(sweep_refusal(edited(text, "shape_count: 1", "shape_count: 2").first),
                 "shape_count is 2, but the file holds 1"));
  const std::string no_count = edited(text, "    variant_count: 2\n", "").first;
  CHECK(starts_with(sweep_refusal(no_count), fmt::format("t.yaml:{}: shape 'small' is missing key 'variant_count'",
                                                         edited(text, "  - name: small", "").second)));

  // Format 2 had no counts: read as it is.
  std::string version2 =
      edited(edited(text, "exactune_sweep: 3", "exactune_sweep: 2").first, "    variant_count: 2\n", "").first;
  version2.erase(version2.find("# The last line"));
  const SweepResults old = parse_sweep_yaml(version2, "t.yaml");
  CHECK(old.shapes.at(0).variants.size() == 2);
  CHECK(contains(sweep_refusal(edited(version2, "exactune_sweep: 2", "exactune_sweep: 7").first),
                 "exactune_sweep: 7 is a format this exactune does not read (it reads 1 to 6)"));
}

TEST_CASE(
    "a variant the family's space does not produce at the shape's size is refused on its line, a planted one "
    "only in a planted sweep",
    "[hostile]") {
  SweepResults sweep = small_sweep();
  const std::string text = to_sweep_yaml(sweep);
  const std::string& name = sweep.shapes[0].variants[0].variant;
  const auto [renamed, renamed_line] = edited(text, "variant: " + name, "variant: w4_made_up");
  CHECK(sweep_refusal(renamed) ==
        fmt::format("t.yaml:{}: params spell variant {}, not w4_made_up", renamed_line + 1, name));
  const auto [unknown_axis, axis_line] = edited(text, "threads:", "colour: red, threads:");
  CHECK(starts_with(sweep_refusal(unknown_axis),
                    fmt::format("t.yaml:{}: params: 'colour' is no axis of family toy_double", axis_line)));

  // A combination the space excludes at this size.
  SweepResults excluded = sweep;
  for (const Candidate& c : enumerate_space(family(), excluded.shapes[0].shape.size)) {
    if (c.valid()) continue;
    excluded.shapes[0].variants[0].variant = c.variant.name;
    excluded.shapes[0].variants[0].params = c.variant.params;
    break;
  }
  const std::string excluded_text = to_sweep_yaml(excluded);
  const auto [_, excluded_line] = edited(excluded_text, "variant: " + excluded.shapes[0].variants[0].variant, "");
  CHECK(starts_with(sweep_refusal(excluded_text),
                    fmt::format("t.yaml:{}: variant {} is not in the space of family toy_double at length 100: ",
                                excluded_line, excluded.shapes[0].variants[0].variant)));

  // A planted copy: only where the file says so, and written so.
  sweep.shapes[0].variants[1].variant = name + ".planted-wrong_bit";
  sweep.shapes[0].variants[1].params = sweep.shapes[0].variants[0].params;
  const std::string unmarked = to_sweep_yaml(sweep);
  const auto [__, planted_line] = edited(unmarked, "variant: " + name + ".planted", "");
  CHECK(sweep_refusal(unmarked) ==
        fmt::format("t.yaml:{}: variant {}.planted-wrong_bit is planted, in a file without 'planted: true' at the top",
                    planted_line, name));
  sweep.planted = true;
  const std::string marked = to_sweep_yaml(sweep);
  CHECK(contains(marked, "\nplanted: true\n"));
  const SweepResults read = parse_sweep_yaml(marked, "t.yaml");
  CHECK(read.planted);
  CHECK(read.shapes[0].variants[1].variant == name + ".planted-wrong_bit");
  CHECK(contains(sweep_refusal(edited(marked, ".planted-wrong_bit", ".planted-Wrong Bit").first),
                 "the planted kind must match [a-z0-9_-]+"));
}

TEST_CASE(
    "strings with newlines, quotes, controls and bytes that are not UTF-8 are written so that the file reads "
    "back",
    "[hostile]") {
  const std::string device = "NVIDIA H200\nsecond: line \"quoted\" \\ # not a comment\t\x01\xc2\x85 caf\xc3\xa9";
  SweepResults sweep = small_sweep();
  sweep.device.name = device;
  sweep.shapes[0].variants[0].failure = "bad byte \xff here";
  const std::string text = to_sweep_yaml(sweep);
  const SweepResults read = parse_sweep_yaml(text, "t.yaml");
  CHECK(read.device.name == device);
  // A byte that is not UTF-8 cannot be in a YAML file: it is written as U+FFFD.
  CHECK(read.shapes[0].variants[0].failure == "bad byte \xef\xbf\xbd here");
  CHECK(to_sweep_yaml(read) == text);

  Heuristics heuristics = choose_heuristics(sweep);
  const std::string yaml = to_heuristics_yaml(heuristics);
  CHECK(starts_with(yaml,
                    "# exactune heuristics: chosen by exactune from reports/nvidia-h200/toy_double/"
                    "sweep.yaml (NVIDIA H200 second: line"));
  CHECK(parse_heuristics_yaml(yaml, "h.yaml").device.name == device);

  DefaultsRecord record;
  record.command = "exactune verify-defaults\n--cpu";
  record.family = family().name();
  record.reference_recipe = "recipe \"quoted\"\n";
  record.shape = "s\\";
  record.rows = 5;
  record.configurations = {{"w4\"\n", {"role\x01"}, {{4, 8, 4}}, {}, {{12, "first\nfailure \xff"}}}};
  const DefaultsRecord again = parse_defaults_yaml(to_defaults_yaml(record), "r.yaml");
  CHECK(again.command == "exactune verify-defaults --cpu");  // a comment holds one line
  CHECK(again.reference_recipe == record.reference_recipe);
  CHECK(again.shape == record.shape);
  CHECK(again.configurations.at(0).variant == "w4\"\n");
  CHECK(again.configurations.at(0).roles.at(0) == "role\x01");
  CHECK(again.configurations.at(0).failed.at(0).first_failure == "first\nfailure \xef\xbf\xbd");
}

TEST_CASE("the gate refuses a candidate whose chosen variant's median is NaN, on its line", "[hostile]") {
  const std::string text = to_sweep_yaml(small_sweep());
  const TempDir dir("gate");
  const fs::path baseline = dir.write("baseline.yaml", text);
  // The chosen variant is the fastest exact one: the first, 10.0 us.
  const auto [nan, line] = edited(text, "rotated_median_us: 10.0", "rotated_median_us: .nan");
  const fs::path candidate = dir.write("candidate.yaml", nan);
  const CliResult r =
      run_toy_cli(fmt::format("gate --baseline '{}' --candidate '{}'", baseline.string(), candidate.string()));
  check_one_located_line(r, candidate);
  CHECK(r.output == fmt::format("exactune: error: {}:{}: rotated_median_us must be a finite number, got .nan\n",
                                candidate.string(), line));
  CHECK(run_toy_cli(fmt::format("gate --baseline '{0}' --candidate '{0}'", baseline.string())).exit_code == 0);
}

TEST_CASE(
    "no malformed file reaches the user as an internal error: each command prints one located line and "
    "exits 2",
    "[hostile]") {
  const std::string sweep = to_sweep_yaml(small_sweep());
  const std::string heuristics = to_heuristics_yaml(choose_heuristics(small_sweep()));
  const std::vector<std::string> hostile = {
      ",",
      "- ,\n",
      "{a: 1},\n",
      sweep.substr(0, sweep.size() / 2),
      edited(sweep, "threads: \"32\"", "threads: \"2147483648\"").first,
      edited(sweep, "rotated_median_us: 10.0", "rotated_median_us: .nan").first,
      edited(sweep, "model: Toy small", "model: caf\xe9").first,
      edited(sweep, "shapes:\n", "shapes: &s\n").first,
      "exactune_sweep: " + std::string(100, '['),
      "exactune_sweep: 99999999999999999999\n",
      edited(heuristics, "format_version: 2", "format_version: 2\nformat_version: 2").first,
      edited(heuristics, "sm_count: 132", "sm_count: 1e400").first,
      heuristics.substr(0, heuristics.size() / 3),
      "shapes:\n  - name: x\n    model: m\n    rows: 99999999999\n    length: 64\n    scale: 1e-6\n",
  };
  const TempDir dir("internal");
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    const fs::path file = dir.write(fmt::format("hostile{}.yaml", i), hostile[i]);
    for (const std::string& command :
         {fmt::format("report --from '{}' --out '{}'", file.string(), (dir.path() / "out").string()),
          fmt::format("gate --baseline '{0}' --candidate '{0}'", file.string()),
          fmt::format("emit-header --from '{}' --out '{}'", file.string(), (dir.path() / "out").string()),
          fmt::format("list --shapes '{}'", file.string())}) {
      INFO(command << "\n" << hostile[i]);
      check_one_located_line(run_toy_cli(command), file);
    }
  }
}
