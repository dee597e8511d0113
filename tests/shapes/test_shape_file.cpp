// The shape-file reader (shapes/shape_file.hpp), generic over families: it
// checks a file's structure, keys, types and names, fills in defaults, hands
// each value to the family to judge, and points every error at its file and
// line. Shown with the toy family's parameters (tests/toy_family), a real
// number with a default among them, and a kind the toy lacks, an integer with
// a default, which a fixture family adds. A family's own parameter rules and default set are its tests
// (families/<name>/tests/cpu).
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <exactune/family.hpp>
#include <exactune/shapes.hpp>
#include <exactune/workload.hpp>

#include "catch.hpp"
#include "shapes/shape_file.hpp"
#include "support/scratch_directory.hpp"
#include "support/shape_file_probe.hpp"
#include "toy_family/toy_family.hpp"

using exactune::Shape;
using exactune::ShapeSet;

namespace {

using namespace exactune;

const KernelFamily& toy() { return exactune_test::toy_family(); }

// The toy family with the kind of parameter it lacks: `repeats`, an integer
// that a shape may leave out (1). The toy judges it as its own (> 0).
class ShapeFixtureFamily final : public KernelFamily {
 public:
  std::string name() const override { return "shape_fixture"; }
  std::string description() const override { return toy().description(); }
  std::string reference_recipe() const override { return toy().reference_recipe(); }
  std::vector<ParameterSpec> shape_parameters() const override {
    std::vector<ParameterSpec> parameters = toy().shape_parameters();
    parameters.push_back({"repeats", "a whole number, > 0 (default 1)", true, 1.0});
    return parameters;
  }
  std::string size_parameter() const override { return toy().size_parameter(); }
  std::string parameter_problem(const std::string& name, double value) const override {
    return toy().parameter_problem(name, value);
  }
  void complete(Shape& shape) const override { toy().complete(shape); }
  std::string default_shapes_path() const override { return toy().default_shapes_path(); }
  Shape with_rows_at_most(const Shape& shape, std::int64_t rows) const override {
    return toy().with_rows_at_most(shape, rows);
  }
  std::vector<Axis> axes() const override { return toy().axes(); }
  std::string variant_name(const std::vector<Param>& params) const override { return toy().variant_name(params); }
  std::string exclusion(const std::vector<Param>& params, int size) const override {
    return toy().exclusion(params, size);
  }
  CompileRequest variant_request(const Variant& variant, int size, const std::string& target) const override {
    return toy().variant_request(variant, size, target);
  }
  std::vector<CompileRequest> support_requests(const std::string& target) const override {
    return toy().support_requests(target);
  }
  std::vector<InputCase> input_cases(const Shape& shape) const override { return toy().input_cases(shape); }
  InputCase timing_case(const Shape& shape) const override { return toy().timing_case(shape); }
  std::unique_ptr<Workload> make_workload(Backend& backend, const SupportKernels& support, const Shape& shape,
                                          const InputCase& input, std::uint64_t seed) const override {
    return toy().make_workload(backend, support, shape, input, seed);
  }
  std::int64_t bytes_moved(const Shape& shape) const override { return toy().bytes_moved(shape); }
  Configuration global_default() const override { return toy().global_default(); }
  std::string global_default_reason() const override { return toy().global_default_reason(); }
  std::vector<SizeFallback> size_fallbacks() const override { return toy().size_fallbacks(); }
  HeatmapAxes heatmap_axes() const override { return toy().heatmap_axes(); }
};

const ShapeFixtureFamily kFixture;

// The fields of a valid one-shape file, in file order: "shapes:" is line 1 and
// field i is on line i + 2.
const exactune_test::ShapeFileProbe probe(
    kFixture, {{"name", "a"}, {"model", "M"}, {"rows", "8"}, {"length", "64"}, {"scale", "0.5"}, {"repeats", "2"}});

std::string error_for(std::string_view yaml) { return probe.error_for(yaml); }

}  // namespace

TEST_CASE("a minimal inline shape parses, its parameters in the family's order, defaults filled in", "[shapes]") {
  const ShapeSet set = probe.parse(probe.one_shape());
  CHECK(set.family == "shape_fixture");
  CHECK(set.source == "t.yaml");
  REQUIRE(set.shapes.size() == 1);
  CHECK(set.shapes[0].name == "a");
  CHECK(set.shapes[0].model == "M");
  CHECK(set.shapes[0].size == 64);
  CHECK(set.shapes[0].rows() == 8);
  CHECK(set.shapes[0].describe_parameters() == "rows=8, length=64, scale=0.5, repeats=2");
  const Shape defaulted = probe.parse(probe.one_shape("repeats", "<omit>")).shapes.at(0);
  CHECK(defaulted.describe_parameters() == "rows=8, length=64, scale=0.5, repeats=1");
  CHECK(probe.parse(probe.one_shape("scale", "1.0e-6")).shapes.at(0).number("scale") == 1e-6);
}

TEST_CASE("sizes lists each size once, ascending", "[shapes]") {
  ShapeSet set;
  for (int size : {4096, 64, 4096, 1024, 64}) {
    Shape shape;
    shape.size = size;
    set.shapes.push_back(shape);
  }
  CHECK(set.sizes() == std::vector<int>{64, 1024, 4096});
  CHECK(ShapeSet{}.sizes().empty());
}

TEST_CASE("a shape file loads with its path as source, one that cannot be read is reported by path", "[shapes]") {
  ScratchDirectory scratch("shape-files");
  const std::string path = (scratch.path() / "toy.yaml").string();
  std::ofstream(path) << "shapes:\n  - {name: a, model: m, rows: 3, length: 40}\n  - {name: b, model: m, rows: 1, "
                         "length: 8}\n";
  const ShapeSet set = load_shapes_file(toy(), path);
  CHECK(set.family == toy().name());
  CHECK(set.source == path);
  REQUIRE(set.shapes.size() == 2);
  CHECK(set.shapes[1].describe_parameters() == "rows=1, length=8, scale=2.0");
  CHECK(set.sizes() == std::vector<int>{8, 40});

  const std::string missing = (scratch.path() / "does-not-exist.yaml").string();
  REQUIRE_THROWS_WITH(load_shapes_file(toy(), missing),
                      missing + ": cannot read the shape file: No such file or directory");
  const std::string directory = scratch.path().string();
  REQUIRE_THROWS_WITH(load_shapes_file(toy(), directory),
                      directory + ": cannot read the shape file: it is a directory");
}

TEST_CASE("YAML syntax errors carry the parser's line", "[shapes]") {
  probe.check_error("shapes:\n  - {name: a, rows: 1\n", 3, "YAML syntax error: ");
  probe.check_error("shapes:\n  - name: a\n    model: M: N\n", 3, "YAML syntax error: illegal map value");
  probe.check_error("shapes:\n  - name: a\n\trows: 1\n", 3, "YAML syntax error: ");
  probe.check_error("shapes:\n  - name: a\n    model: M\n    rows: *undefined\n", 4, "YAML syntax error: ");
  probe.check_error("shapes:\n  - name: a\n   rows: 1\n", 3, "YAML syntax error: ");
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
  CHECK(error_for(probe.one_shape() + "---\nshapes: []\n") ==
        "t.yaml:9: the file holds one YAML document; this is a second one");
}

TEST_CASE("unknown and repeated keys are rejected", "[shapes]") {
  CHECK(error_for(probe.one_shape() + "shape: 1\n") ==
        "t.yaml:8: unknown key 'shape' in the top level (known: shapes)");
  CHECK(error_for(probe.one_shape() + "shapes: []\n") ==
        "t.yaml:8: key 'shapes' appears twice in the top level (first on line 1)");
  CHECK(error_for(probe.one_shape() + "    lenght: 64\n") ==
        "t.yaml:8: unknown key 'lenght' in shape #1 (known: name, model, rows, length, scale, repeats)");
  CHECK(error_for(probe.one_shape() + "    rows: 2\n") ==
        "t.yaml:8: key 'rows' appears twice in shape #1 (first on line 4)");
  CHECK(error_for("shapes:\n  - name: a\n    [x]: 1\n") == "t.yaml:3: a key in shape #1 must be a name, got a list");
}

TEST_CASE("missing required keys are listed on the shape's line, and keys with a default are not", "[shapes]") {
  CHECK(error_for(probe.one_shape("length", "<omit>")) == "t.yaml:2: shape #1 is missing required key 'length'");
  CHECK(error_for(probe.one_shape() + "  - name: b\n    model: M\n    scale: 1\n") ==
        "t.yaml:8: shape #2 is missing required keys 'rows', 'length'");
  const Shape scale_defaulted = probe.parse(probe.one_shape("scale", "<omit>")).shapes.at(0);
  CHECK(scale_defaulted.number("scale") == 2.0);
  // The name is the first line; without it the shape starts at the next field.
  CHECK(error_for(probe.one_shape("name", "<omit>")) == "t.yaml:2: shape #1 is missing required key 'name'");
}

TEST_CASE("list items must be maps", "[shapes]") {
  CHECK(error_for("shapes:\n  - 3\n") == "t.yaml:2: shapes #1 must be a map, got '3'");
  CHECK(error_for("shapes:\n  - [a, b]\n") == "t.yaml:2: shapes #1 must be a map, got a list");
  // An empty item has no position of its own: the list's line (where its first
  // item starts) and the item number locate it.
  CHECK(error_for(probe.one_shape() + "  -\n") == "t.yaml:2: shapes #2 must be a map, got nothing");
}

TEST_CASE("values of the wrong type are rejected", "[shapes]") {
  SECTION("integers") {
    probe.check_field_error("rows", "two", "rows must be an integer, got 'two'");
    probe.check_field_error("rows", "1.5", "rows must be an integer, got '1.5'");
    probe.check_field_error("length", "1e3", "length must be an integer, got '1e3'");
    probe.check_field_error("length", "8x", "length must be an integer, got '8x'");
    probe.check_field_error("length", "\"64\"", "length must be an integer, got the quoted string \"64\"");
    probe.check_field_error("length", "[64]", "length must be an integer, got a list");
    probe.check_field_error("repeats", "{k: 6}", "repeats must be an integer, got a map");
    probe.check_field_error("rows", "99999999999", "rows 99999999999 is out of range");
  }
  SECTION("numbers") {
    probe.check_field_error("scale", "[1]", "scale must be a number, got a list");
    probe.check_field_error("scale", "small", "scale must be a number, got 'small'");
    probe.check_field_error("scale", "'1e-6'", "scale must be a number, got the quoted string \"1e-6\"");
    probe.check_field_error("scale", ".nan", "scale must be a finite number");
  }
  SECTION("strings") {
    probe.check_field_error("model", "[a, b]", "model must be a string, got a list");
    probe.check_field_error("model", "''", "model must not be empty");
    probe.check_field_error("name", "{a: 1}", "name must be a string, got a map");
  }
  SECTION("empty values are reported on the key's line") {
    probe.check_field_error("rows", "", "rows has no value (expected an integer)");
    probe.check_field_error("scale", "~", "scale has no value (expected a number)");
    probe.check_field_error("name", "", "name has no value (expected a string)");
  }
}

TEST_CASE("a value the family refuses is reported on its line in the family's words, and infinity never reaches it",
          "[shapes]") {
  probe.check_field_error("rows", "0", "rows must be > 0");
  probe.check_field_error("length", "-64", "length must be > 0");
  probe.check_field_error("repeats", "0", "repeats must be > 0");
  probe.check_field_error("scale", "-1.0e-6", "scale must be > 0");
  probe.check_field_error("scale", "inf", "scale must be a finite number");
  probe.check_field_error("scale", ".inf", "scale must be a finite number");
  CHECK(probe.parse(probe.one_shape("length", "8192")).shapes[0].size == 8192);
}

TEST_CASE("names follow [a-z0-9._-]+ and are unique", "[shapes]") {
  probe.check_field_error("name", "Toy", "name 'Toy' must match [a-z0-9._-]+");
  probe.check_field_error("name", "a b", "name 'a b' must match [a-z0-9._-]+");
  probe.check_field_error("name", "''", "name must not be empty");
  CHECK(probe.parse(probe.one_shape("name", "x.y_z-9")).shapes[0].name == "x.y_z-9");

  const std::string twice = probe.one_shape() + "  - name: a\n    model: N\n    rows: 2\n    length: 4\n    scale: 1\n";
  CHECK(error_for(twice) == "t.yaml:8: name 'a' is already used on line 2");
}

TEST_CASE("error messages start with the source they were given", "[shapes]") {
  REQUIRE_THROWS_WITH(probe.parse("shapes: []\n", "my/set.yaml"),
                      "my/set.yaml:1: 'shapes' is empty; a set needs at least one shape");
}
