#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <exactune/error.hpp>
#include <exactune/shapes.hpp>
#include <exactune/workload.hpp>

#include "catch.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate/layer_norm_modulate_inputs.hpp"
#include "shapes/shape_file.hpp"

using exactune::ModulateProblem;
using exactune::Shape;
using exactune::ShapeSet;

namespace {

const exactune::KernelFamily& family() { return exactune::layer_norm_modulate_family(); }

ShapeSet parse_shapes(std::string_view yaml, const std::string& source) {
  return exactune::parse_shapes(family(), yaml, source);
}

const std::string kDataDir = EXACTUNE_TEST_DATA_DIR;

// The fields of a valid one-shape file, in file order: "shapes:" is line 1 and
// field i is on line i + 2.
const std::vector<std::pair<std::string, std::string>> kFields = {
    {"name", "a"},    {"model", "M"},    {"batch", "1"},           {"tokens", "8"},
    {"hidden", "64"}, {"eps", "1.0e-6"}, {"modulation_rows", "6"},
};

int line_of_field(std::string_view key) {
  for (std::size_t i = 0; i < kFields.size(); ++i) {
    if (kFields[i].first == key) return static_cast<int>(i) + 2;
  }
  FAIL("no field " << key);
  return 0;
}

// A one-shape file with `key`'s value replaced by `value` (verbatim YAML), or
// with `key` left out when `value` is "<omit>".
std::string one_shape(std::string_view key = "", std::string_view value = "") {
  std::string text = "shapes:\n";
  bool first = true;
  for (const auto& [field, default_value] : kFields) {
    if (field == key && value == "<omit>") continue;
    text += (first ? "  - " : "    ") + field + ": " + std::string(field == key ? value : default_value) + "\n";
    first = false;
  }
  return text;
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// The message parse_shapes throws for `yaml` (named "t.yaml"); fails the test when it parses.
std::string error_for(std::string_view yaml) {
  try {
    parse_shapes(yaml, "t.yaml");
  } catch (const exactune::error& e) {
    return e.what();
  }
  FAIL("parsed without an error:\n" << yaml);
  return {};
}

// Checks that `yaml` is rejected at `line` with a message containing `what`.
void check_error(std::string_view yaml, int line, std::string_view what) {
  const std::string message = error_for(yaml);
  INFO("yaml:\n" << yaml << "message: " << message);
  CHECK(message.rfind("t.yaml:" + std::to_string(line) + ": ", 0) == 0);
  CHECK(contains(message, what));
}

// Same for one field of a one-shape file, reported on that field's line.
void check_field_error(std::string_view key, std::string_view value, std::string_view what) {
  check_error(one_shape(key, value), line_of_field(key), what);
}

}  // namespace

TEST_CASE("the default shape set holds the tuned models and edge cases", "[shapes]") {
  const ShapeSet set = exactune::default_shapes(family());
  CHECK(set.family == "layer_norm_modulate");
  CHECK(set.source == "<embedded default of layer_norm_modulate>");

  struct Expected {
    const char* name;
    int batch, tokens, hidden;
    double eps;
    int modulation_rows = 6;  // adaLN-Zero: a (B, 6, D) embedding
  };
  const std::vector<Expected> expected = {
      {"sana-1024px", 2, 1024, 2240, 1e-6},           {"flux1-1024px-image", 1, 4096, 3072, 1e-6},
      {"flux1-1024px-joint", 1, 4608, 3072, 1e-6, 3}, {"glm-image", 1, 4096, 4096, 1e-5},
      {"edge-37tok-d2240", 1, 37, 2240, 1e-6},        {"edge-301tok-d4096", 2, 301, 4096, 1e-5},
      {"edge-1tok-d3072", 1, 1, 3072, 1e-6},
  };
  REQUIRE(set.shapes.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const Shape& shape = set.shapes[i];
    INFO("shape " << shape.name);
    const ModulateProblem p = ModulateProblem::of(shape);
    CHECK(shape.name == expected[i].name);
    CHECK_FALSE(shape.model.empty());
    CHECK(p.batch == expected[i].batch);
    CHECK(p.tokens == expected[i].tokens);
    CHECK(p.hidden == expected[i].hidden);
    CHECK(shape.size == expected[i].hidden);
    CHECK(p.eps == expected[i].eps);
    CHECK(p.modulation_stride == expected[i].modulation_rows * static_cast<std::int64_t>(expected[i].hidden));
    CHECK(shape.rows() == static_cast<std::int64_t>(expected[i].batch) * expected[i].tokens);
  }
  CHECK(set.shapes[0].model == "Sana 1024px");
  CHECK(set.sizes() == std::vector<int>{2240, 3072, 4096});
}

TEST_CASE("a custom shape file loads with its path as source", "[shapes]") {
  const std::string path = kDataDir + "/shapes/custom.yaml";
  const ShapeSet set = exactune::load_shapes_file(family(), path);
  CHECK(set.family == "layer_norm_modulate");
  CHECK(set.source == path);
  REQUIRE(set.shapes.size() == 2);

  const Shape& first = set.shapes[0];
  const ModulateProblem p1 = ModulateProblem::of(first);
  CHECK(first.name == "qwen-image.1328px_b1");
  CHECK(first.model == "Qwen-Image: 1328px");
  CHECK(p1.batch == 1);
  CHECK(p1.tokens == 6889);
  CHECK(p1.hidden == 3072);
  CHECK(first.size == 3072);
  CHECK(p1.eps == 1e-6);
  CHECK(p1.modulation_stride == 3072);  // modulation_rows left out: contiguous (B, 1, D)
  CHECK(first.rows() == 6889);

  const Shape& second = set.shapes[1];
  const ModulateProblem p2 = ModulateProblem::of(second);
  CHECK(second.name == "tiny");
  CHECK(second.model == "tiny test");
  CHECK(p2.batch == 3);
  CHECK(p2.tokens == 5);
  CHECK(p2.hidden == 4);
  CHECK(second.size == 4);
  CHECK(p2.eps == 0.5);
  CHECK(p2.modulation_stride == 8);
  CHECK(second.rows() == 15);

  CHECK(set.sizes() == std::vector<int>{4, 3072});
}

TEST_CASE("sizes lists each hidden size once, ascending", "[shapes]") {
  ShapeSet set;
  for (int hidden : {4096, 64, 4096, 1024, 64}) set.shapes.push_back(exactune::modulate_shape("s", 1, 1, hidden, 1e-6));
  CHECK(set.sizes() == std::vector<int>{64, 1024, 4096});
  CHECK(ShapeSet{}.sizes().empty());
}

TEST_CASE("a minimal inline shape parses", "[shapes]") {
  const ShapeSet set = parse_shapes(one_shape(), "t.yaml");
  CHECK(set.source == "t.yaml");
  REQUIRE(set.shapes.size() == 1);
  CHECK(set.shapes[0].name == "a");
  CHECK(ModulateProblem::of(set.shapes[0]).modulation_stride == 6 * 64);
  CHECK(set.shapes[0].describe_parameters() == "batch=1, tokens=8, hidden=64, eps=1.0e-06, modulation_rows=6");
}

TEST_CASE("shape files that cannot be read are reported by path", "[shapes]") {
  const std::string missing = kDataDir + "/shapes/does-not-exist.yaml";
  REQUIRE_THROWS_WITH(exactune::load_shapes_file(family(), missing),
                      missing + ": cannot read the shape file: No such file or directory");
  const std::string directory = kDataDir + "/shapes";
  REQUIRE_THROWS_WITH(exactune::load_shapes_file(family(), directory),
                      directory + ": cannot read the shape file: it is a directory");
}

TEST_CASE("errors in a shape file name the file and line", "[shapes]") {
  const std::string path = kDataDir + "/shapes/bad_hidden.yaml";
  REQUIRE_THROWS_WITH(exactune::load_shapes_file(family(), path),
                      path +
                          ":7: hidden 2242 is not a multiple of 4 "
                          "(aten's vectorized LayerNorm needs hidden % 4 == 0)");
}

TEST_CASE("YAML syntax errors carry the parser's line", "[shapes]") {
  check_error("shapes:\n  - {name: a, batch: 1\n", 3, "YAML syntax error: ");
  check_error("shapes:\n  - name: a\n    model: M: N\n", 3, "YAML syntax error: illegal map value");
  check_error("shapes:\n  - name: a\n\tbatch: 1\n", 3, "YAML syntax error: ");
  check_error("shapes:\n  - name: a\n    model: M\n    batch: *undefined\n", 4, "YAML syntax error: ");
  check_error("shapes:\n  - name: a\n   batch: 1\n", 3, "YAML syntax error: ");
}

TEST_CASE("the top level must be a map with a non-empty shapes list", "[shapes]") {
  CHECK(error_for("") == "t.yaml:1: the file is empty; expected a map with a 'shapes' list");
  CHECK(error_for("# only a comment\n") == "t.yaml:1: the file is empty; expected a map with a 'shapes' list");
  CHECK(error_for("- name: a\n") == "t.yaml:1: expected a map with a 'shapes' list, got a list");
  CHECK(error_for("\nhello\n") == "t.yaml:2: expected a map with a 'shapes' list, got 'hello'");
  CHECK(error_for("{}\n") == "t.yaml:1: the top level is missing key 'shapes'");
  CHECK(error_for("shapes:\n") == "t.yaml:1: shapes must be a list, got nothing");
  CHECK(error_for("shapes: 3\n") == "t.yaml:1: shapes must be a list, got '3'");
  CHECK(error_for("shapes: {name: a}\n") == "t.yaml:1: shapes must be a list, got a map");
  CHECK(error_for("# c\nshapes: []\n") == "t.yaml:2: 'shapes' is empty; a set needs at least one shape");
  CHECK(error_for(one_shape() + "---\nshapes: []\n") ==
        "t.yaml:10: the file holds one YAML document; this is a second one");
}

TEST_CASE("unknown and repeated keys are rejected", "[shapes]") {
  CHECK(error_for(one_shape() + "shape: 1\n") == "t.yaml:9: unknown key 'shape' in the top level (known: shapes)");
  CHECK(error_for(one_shape() + "shapes: []\n") ==
        "t.yaml:9: key 'shapes' appears twice in the top level (first on line 1)");
  CHECK(error_for(one_shape() + "    hiden: 64\n") ==
        "t.yaml:9: unknown key 'hiden' in shape #1 "
        "(known: name, model, batch, tokens, hidden, eps, modulation_rows)");
  CHECK(error_for(one_shape() + "    batch: 2\n") ==
        "t.yaml:9: key 'batch' appears twice in shape #1 (first on line 4)");
  CHECK(error_for("shapes:\n  - name: a\n    [x]: 1\n") == "t.yaml:3: a key in shape #1 must be a name, got a list");
}

TEST_CASE("missing required keys are listed on the shape's line", "[shapes]") {
  CHECK(error_for(one_shape("eps", "<omit>")) == "t.yaml:2: shape #1 is missing required key 'eps'");
  CHECK(error_for(one_shape() + "  - name: b\n    model: M\n    hidden: 64\n") ==
        "t.yaml:9: shape #2 is missing required keys 'batch', 'tokens', 'eps'");
  // The name is the first line; without it the shape starts at the next field.
  CHECK(error_for(one_shape("name", "<omit>")) == "t.yaml:2: shape #1 is missing required key 'name'");
}

TEST_CASE("list items must be maps", "[shapes]") {
  CHECK(error_for("shapes:\n  - 3\n") == "t.yaml:2: shapes #1 must be a map, got '3'");
  CHECK(error_for("shapes:\n  - [a, b]\n") == "t.yaml:2: shapes #1 must be a map, got a list");
  // An empty item has no position of its own: the list's line (where its first
  // item starts) and the item number locate it.
  CHECK(error_for(one_shape() + "  -\n") == "t.yaml:2: shapes #2 must be a map, got nothing");
}

TEST_CASE("values of the wrong type are rejected", "[shapes]") {
  SECTION("integers") {
    check_field_error("batch", "two", "batch must be an integer, got 'two'");
    check_field_error("batch", "1.5", "batch must be an integer, got '1.5'");
    check_field_error("tokens", "1e3", "tokens must be an integer, got '1e3'");
    check_field_error("tokens", "8x", "tokens must be an integer, got '8x'");
    check_field_error("hidden", "\"64\"", "hidden must be an integer, got the quoted string \"64\"");
    check_field_error("hidden", "[64]", "hidden must be an integer, got a list");
    check_field_error("modulation_rows", "{k: 6}", "modulation_rows must be an integer, got a map");
    check_field_error("batch", "99999999999", "batch 99999999999 is out of range");
  }
  SECTION("numbers") {
    check_field_error("eps", "[1]", "eps must be a number, got a list");
    check_field_error("eps", "small", "eps must be a number, got 'small'");
    check_field_error("eps", "'1e-6'", "eps must be a number, got the quoted string \"1e-6\"");
    check_field_error("eps", ".nan", "eps must be a finite number");
  }
  SECTION("strings") {
    check_field_error("model", "[a, b]", "model must be a string, got a list");
    check_field_error("model", "''", "model must not be empty");
    check_field_error("name", "{a: 1}", "name must be a string, got a map");
  }
  SECTION("empty values are reported on the key's line") {
    check_field_error("batch", "", "batch has no value (expected an integer)");
    check_field_error("eps", "~", "eps has no value (expected a number)");
    check_field_error("name", "", "name has no value (expected a string)");
  }
}

TEST_CASE("values outside their range are rejected", "[shapes]") {
  CHECK(error_for(one_shape("hidden", "2242")) ==
        "t.yaml:6: hidden 2242 is not a multiple of 4 (aten's vectorized LayerNorm needs hidden % 4 == 0)");
  check_field_error("hidden", "0", "hidden 0 is out of range (must be 1..8192)");
  check_field_error("hidden", "-64", "hidden -64 is out of range (must be 1..8192)");
  check_field_error("hidden", "8196", "hidden 8196 is out of range (must be 1..8192)");
  check_field_error("batch", "0", "batch 0 must be > 0");
  check_field_error("tokens", "-3", "tokens -3 must be > 0");
  check_field_error("modulation_rows", "0", "modulation_rows 0 must be > 0");
  check_field_error("eps", "0", "eps 0 must be a finite number > 0");
  check_field_error("eps", "-1.0e-6", "eps -1e-06 must be a finite number > 0");
  check_field_error("eps", "inf", "eps must be a finite number");
  check_field_error("eps", ".inf", "eps must be a finite number");
  CHECK(parse_shapes(one_shape("hidden", "8192"), "t.yaml").shapes[0].size == 8192);
}

TEST_CASE("names follow [a-z0-9._-]+ and are unique", "[shapes]") {
  check_field_error("name", "Sana", "name 'Sana' must match [a-z0-9._-]+");
  check_field_error("name", "a b", "name 'a b' must match [a-z0-9._-]+");
  check_field_error("name", "''", "name must not be empty");
  CHECK(parse_shapes(one_shape("name", "x.y_z-9"), "t.yaml").shapes[0].name == "x.y_z-9");

  const std::string twice = one_shape() +
                            "  - name: a\n    model: N\n    batch: 2\n    tokens: 4\n"
                            "    hidden: 8\n    eps: 1.0e-5\n";
  CHECK(error_for(twice) == "t.yaml:9: name 'a' is already used on line 2");
}

TEST_CASE("error messages start with the source they were given", "[shapes]") {
  REQUIRE_THROWS_WITH(parse_shapes("shapes: []\n", "my/set.yaml"),
                      "my/set.yaml:1: 'shapes' is empty; a set needs at least one shape");
}

TEST_CASE("a shape's own eps is what its cases and its timing run at", "[shapes]") {
  using namespace exactune;
  const KernelFamily& family = layer_norm_modulate_family();
  const Shape shape = modulate_shape("eps-1e-3", 1, 4, 64, 1e-3);
  std::vector<std::string> names;
  for (const InputCase& c : family.input_cases(shape)) names.push_back(c.name);
  CHECK(names == std::vector<std::string>{"a0.0001_e1e-06", "a0.0001_e0.001", "a1_e1e-06", "a1_e0.001", "a100_e1e-06",
                                          "a100_e0.001", "offset100_e0.001", "signed_zeros_e0.001"});
  CHECK(family.timing_case(shape).name == "a1_e0.001");
  const ModulateInputs timed = make_modulate_inputs(shape, find_modulate_case(1e-3, family.timing_case(shape).name), 1);
  CHECK(timed.eps == static_cast<float>(1e-3));
  // The usual epsilons keep their cases, in their order.
  CHECK(family.input_cases(modulate_shape("e6", 1, 4, 64, 1e-6)).size() == 8);
  CHECK(family.input_cases(modulate_shape("e5", 1, 4, 64, 1e-5)).front().name == "a0.0001_e1e-06");
  CHECK_THROWS_AS(find_modulate_case(1e-6, "a1_e0.001"), error);
}
