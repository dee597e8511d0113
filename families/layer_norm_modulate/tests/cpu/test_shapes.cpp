// The family's shapes: its default set (the tuned models and edge cases), a
// shape file of its own (custom.yaml, with modulation_rows left to its
// default), and its parameters' rules (hidden a multiple of 4 in 1..8192, eps
// and the counts > 0), each refused at its file and line. The reader's own
// rules, which hold for every family, are tests/shapes/test_shape_file.cpp.
#include <string>
#include <utility>
#include <vector>

#include <exactune/shapes.hpp>

#include "catch.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate/layer_norm_modulate_inputs.hpp"
#include "shapes/shape_file.hpp"
#include "support/shape_file_probe.hpp"

using exactune::ModulateProblem;
using exactune::Shape;
using exactune::ShapeSet;

namespace {

const exactune::KernelFamily& family() { return exactune::layer_norm_modulate_family(); }

const std::string kDataDir = EXACTUNE_TEST_DATA_DIR;

// The fields of a valid one-shape file, in file order: "shapes:" is line 1 and
// field i is on line i + 2.
const exactune_test::ShapeFileProbe probe(family(), {
                                                        {"name", "a"},
                                                        {"model", "M"},
                                                        {"batch", "1"},
                                                        {"tokens", "8"},
                                                        {"hidden", "64"},
                                                        {"eps", "1.0e-6"},
                                                        {"modulation_rows", "6"},
                                                    });

}  // namespace

TEST_CASE("the default shape set holds the tuned models, per-token modulation and edge cases", "[shapes]") {
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
      {"sana-1024px", 2, 1024, 2240, 1e-6},
      {"flux1-1024px-image", 1, 4096, 3072, 1e-6},
      {"flux1-1024px-joint", 1, 4608, 3072, 1e-6, 3},
      {"glm-image", 1, 4096, 4096, 1e-5},
      {"per-token-27280tok-d3072", 27280, 1, 3072, 1e-6},  // per-token modulation: a batch element a token
      {"edge-37tok-d2240", 1, 37, 2240, 1e-6},
      {"edge-301tok-d4096", 2, 301, 4096, 1e-5},
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

TEST_CASE("the bytes a kernel moves count scale and shift: per-token modulation doubles them", "[shapes]") {
  const ShapeSet set = exactune::default_shapes(family());
  const auto bytes_of = [&](const char* name) {
    for (const Shape& s : set.shapes) {
      if (s.name == name) return family().bytes_moved(s);
    }
    FAIL("no shape " << name);
    return std::int64_t{0};
  };
  // x read and y written, 2 bytes an element; a scale and a shift row per batch element.
  CHECK(bytes_of("sana-1024px") == 2 * (2 * 2048 + 2 * 2) * std::int64_t{2240});
  // A batch element per token: as many scale and shift rows as rows of x.
  CHECK(bytes_of("per-token-27280tok-d3072") == 2 * (2 * 27280 + 2 * 27280) * std::int64_t{3072});
}

TEST_CASE("the roofline copy moves what the kernel moves, at every default shape", "[shapes]") {
  for (const Shape& shape : exactune::default_shapes(family()).shapes) {
    INFO(shape.name);
    const std::vector<std::int64_t> regions = modulate_copy_elements(shape);
    REQUIRE(regions.size() == 2);
    CHECK(regions[0] == shape.rows() * shape.integer("hidden"));  // x, whole
    // Each element copied is read and written, 2 bytes each time.
    CHECK(4 * (regions[0] + regions[1]) == family().bytes_moved(shape));
  }
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

TEST_CASE("a minimal inline shape parses", "[shapes]") {
  const ShapeSet set = probe.parse(probe.one_shape());
  CHECK(set.source == "t.yaml");
  REQUIRE(set.shapes.size() == 1);
  CHECK(set.shapes[0].name == "a");
  CHECK(ModulateProblem::of(set.shapes[0]).modulation_stride == 6 * 64);
  CHECK(set.shapes[0].describe_parameters() == "batch=1, tokens=8, hidden=64, eps=1.0e-06, modulation_rows=6");
}

TEST_CASE("errors in a shape file name the file and line", "[shapes]") {
  const std::string path = kDataDir + "/shapes/bad_hidden.yaml";
  REQUIRE_THROWS_WITH(exactune::load_shapes_file(family(), path),
                      path +
                          ":7: hidden 2242 is not a multiple of 4 "
                          "(aten's vectorized LayerNorm needs hidden % 4 == 0)");
}

TEST_CASE("values outside their range are rejected", "[shapes]") {
  CHECK(probe.error_for(probe.one_shape("hidden", "2242")) ==
        "t.yaml:6: hidden 2242 is not a multiple of 4 (aten's vectorized LayerNorm needs hidden % 4 == 0)");
  probe.check_field_error("hidden", "0", "hidden 0 is out of range (must be 1..8192)");
  probe.check_field_error("hidden", "-64", "hidden -64 is out of range (must be 1..8192)");
  probe.check_field_error("hidden", "8196", "hidden 8196 is out of range (must be 1..8192)");
  probe.check_field_error("batch", "0", "batch 0 must be > 0");
  probe.check_field_error("tokens", "-3", "tokens -3 must be > 0");
  probe.check_field_error("modulation_rows", "0", "modulation_rows 0 must be > 0");
  probe.check_field_error("eps", "0", "eps 0 must be a finite number > 0");
  probe.check_field_error("eps", "-1.0e-6", "eps -1e-06 must be a finite number > 0");
  probe.check_field_error("eps", "inf", "eps must be a finite number");
  probe.check_field_error("eps", ".inf", "eps must be a finite number");
  CHECK(probe.parse(probe.one_shape("hidden", "8192")).shapes[0].size == 8192);
}
