// The C ABI from C++: the same calls the torch cross-check makes through ctypes,
// so that a failure here is ours and not the Python side's.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "layer_norm_modulate/capi/exactune_capi.h"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate/layer_norm_modulate_inputs.hpp"

namespace exactune {

TEST_CASE("the C ABI runs the reference and every variant, which agree", "[gpu][capi]") {
  const Shape shape = modulate_shape("capi", 2, 5, 64, 1e-6, 6);
  const ModulateProblem m = ModulateProblem::of(shape);
  const ModulateInputs in = make_modulate_inputs(shape, modulate_cases(ModulateProblem::of(shape).eps).front(), 11);
  exactune_problem p{in.x.data(),
                     in.embedding.data(),
                     static_cast<int64_t>(in.embedding.size()),
                     in.scale_offset,
                     in.shift_offset,
                     m.modulation_stride,
                     m.batch,
                     m.tokens,
                     m.hidden,
                     m.eps};
  const std::size_t n = static_cast<std::size_t>(shape.rows()) * m.hidden;
  std::vector<uint16_t> out(n), y(n), variant_out(n);
  std::vector<float> mean(shape.rows()), rstd(shape.rows());
  INFO(exactune_last_error());
  REQUIRE(exactune_reference(&p, out.data(), y.data(), mean.data(), rstd.data()) == 0);

  std::vector<char> names(1 << 16);
  REQUIRE(exactune_list_variants(m.hidden, names.data(), names.size()) == 0);
  std::string list(names.data());
  std::size_t start = 0, variants = 0;
  for (std::size_t end; (end = list.find('\n', start)) != std::string::npos; start = end + 1, ++variants) {
    const std::string name = list.substr(start, end - start);
    INFO(name << ": " << exactune_last_error());
    REQUIRE(exactune_run_variant(&p, name.c_str(), variant_out.data()) == 0);
    CHECK(variant_out == out);
  }
  CHECK(variants > 10);

  exactune_problem bad = p;
  bad.hidden = 66;
  CHECK(exactune_reference(&bad, out.data(), nullptr, nullptr, nullptr) != 0);
  CHECK(std::string(exactune_last_error()).find("hidden") != std::string::npos);
}

}  // namespace exactune
