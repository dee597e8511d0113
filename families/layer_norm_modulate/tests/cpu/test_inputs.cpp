// The family's inputs: its host rounding to bf16 (round to nearest even, as
// the kernels round), and the input cases and timing case of a shape, which
// run at the shape's own eps.
#include <string>
#include <vector>

#include <exactune/error.hpp>
#include <exactune/shapes.hpp>
#include <exactune/workload.hpp>

#include "catch.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate/layer_norm_modulate_inputs.hpp"

using namespace exactune;

TEST_CASE("host bf16 rounding is round-to-nearest-even", "[inputs]") {
  CHECK(bf16_from_float(1.0f) == 0x3f80);
  CHECK(bf16_from_float(1.00390625f) == 0x3f80);  // halfway, rounds to even
  CHECK(bf16_from_float(1.01171875f) == 0x3f82);  // halfway, rounds up to even
  CHECK(bf16_from_float(-0.0f) == 0x8000);
  CHECK(bf16_from_float(3.4e38f) == 0x7f80);  // overflows to infinity
}

TEST_CASE("a shape's own eps is what its cases and its timing run at", "[inputs]") {
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
