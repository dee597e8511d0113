// The gated residual family's space, problems and registration: the same
// variants, names and exclusions as layer_norm_modulate (its fused template
// runs unchanged over another row source), compiling this family's kernel;
// shapes that leave no embedding row for gate refused; the default set's sizes.
#include <set>
#include <string>

#include <exactune/family_registry.hpp>
#include <exactune/space.hpp>

#include "catch.hpp"
#include "gated_residual_layer_norm_modulate/gated_residual_layer_norm_modulate_family.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "shapes/shape_file.hpp"
#include "support/axis_table_round_trip.hpp"

using namespace exactune;

namespace {

const KernelFamily& gated() { return gated_residual_layer_norm_modulate_family(); }

}  // namespace

TEST_CASE("the family is registered under its name", "[gated_space]") {
  CHECK(&FamilyRegistry::find("gated_residual_layer_norm_modulate") == &gated());
}

TEST_CASE("the space is layer_norm_modulate's: the same names, validity and reasons at every size", "[gated_space]") {
  for (int hidden : {4, 72, 400, 1536, 2240, 3072, 5120, 8192}) {
    INFO("hidden " << hidden);
    const std::vector<Candidate> ours = enumerate_space(gated(), hidden);
    const std::vector<Candidate> theirs = enumerate_space(layer_norm_modulate_family(), hidden);
    REQUIRE(ours.size() == theirs.size());
    for (std::size_t i = 0; i < ours.size(); ++i) {
      CHECK(ours[i].variant.name == theirs[i].variant.name);
      CHECK(ours[i].excluded_because == theirs[i].excluded_because);
    }
  }
}

TEST_CASE("every value of every axis round-trips through name, params and compile request", "[gated_space]") {
  exactune_test::check_axis_table_round_trip(gated(), gated_residual_axis_table(), {72, 1536, 2240, 5120});
}

TEST_CASE("a variant compiles this family's kernel, named apart from layer_norm_modulate's", "[gated_space]") {
  const Variant v = LayerNormModulateConfig{}.variant();
  const CompileRequest ours = gated().variant_request(v, 2240, "host");
  const CompileRequest theirs = layer_norm_modulate_family().variant_request(v, 2240, "host");
  CHECK(ours.main_file == "families/gated_residual_layer_norm_modulate/kernels/gated_residual_layer_norm_modulate.cuh");
  CHECK(ours.name_expression.rfind("&exactune_kernels::gated_residual_layer_norm_modulate<2240, ", 0) == 0);
  CHECK(ours.name != theirs.name);
  // The template arguments after the kernel's name are the same launch shape's.
  CHECK(ours.name_expression.substr(ours.name_expression.find('<')) ==
        theirs.name_expression.substr(theirs.name_expression.find('<')));
}

TEST_CASE("a shape whose embedding has no row for gate is refused, saying why", "[gated_space]") {
  CHECK(gated().parameter_problem("modulation_rows", 2).find("no row for gate") != std::string::npos);
  CHECK(gated().parameter_problem("modulation_rows", 3).empty());
  CHECK(!gated().parameter_problem("hidden", 70).empty());
}

TEST_CASE("the default shapes hold FLUX.1's, SD3's and Sana's hidden sizes, 5120 and an odd small one",
          "[gated_space]") {
  const ShapeSet set = default_shapes(gated());
  CHECK(set.sizes() == std::vector<int>{72, 1536, 2240, 3072, 5120});
  for (const Shape& shape : set.shapes) {
    INFO(shape.name);
    CHECK(shape.integer("modulation_rows") >= 3);
    // Wan modulates in float32: its size is here, its name is not.
    CHECK(shape.name.find("wan") == std::string::npos);
  }
}

TEST_CASE("the bytes the fused kernel moves count x, h, r, y and the gate, scale and shift rows", "[gated_space]") {
  const KernelFamily& family = gated_residual_layer_norm_modulate_family();
  for (const Shape& shape : default_shapes(family).shapes) {
    INFO(shape.name);
    const ModulateProblem p = ModulateProblem::of(shape);
    CHECK(family.bytes_moved(shape) == 2 * (4 * shape.rows() + 3 * std::int64_t{p.batch}) * p.hidden);
  }
}

TEST_CASE("the roofline copy moves what the fused kernel moves, at every default shape and per token",
          "[gated_space]") {
  const KernelFamily& family = gated_residual_layer_norm_modulate_family();
  std::vector<Shape> shapes = default_shapes(family).shapes;
  shapes.push_back(gated_residual_shape("per-token", 27280, 1, 3072, 1e-6));
  for (const Shape& shape : shapes) {
    INFO(shape.name);
    const std::vector<std::int64_t> regions = gated_residual_copy_elements(shape);
    REQUIRE(regions.size() == 3);
    CHECK(regions[0] == shape.rows() * shape.integer("hidden"));  // x and h, whole
    CHECK(regions[1] == regions[0]);
    // Each element copied is read and written, 2 bytes each time.
    CHECK(4 * (regions[0] + regions[1] + regions[2]) == family.bytes_moved(shape));
  }
}
