// The torch golden data of the gated residual family (tests/data/torch_golden,
// written on the GPU machine by tests/torch/make_torch_golden.py): per case,
// torch's inputs (x, h and the shift, scale and gate rows), its bits for the
// residual r, for mean and rstd of the LayerNorm over r and for the eager
// chain y, plus the GPU's rsqrtf around each row's var + eps. The part after
// the residual is layer_norm_modulate's golden layout, read into its types.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <exactune/shapes.hpp>

#include "gated_residual_layer_norm_modulate/gated_residual_layer_norm_modulate_inputs.hpp"
#include "layer_norm_modulate/tests/cpu/torch_golden.hpp"

namespace exactune_test {

struct GatedTorchGolden {
  // batch, tokens and the embedding's rows; per case x, shift, scale, mean and
  // rstd (of the LayerNorm over r), out (y) and the rsqrt windows; no layer_norm.
  TorchGolden modulate;
  int gate_row = 0;
  struct Residual {
    std::vector<std::uint16_t> h;     // rows * hidden
    std::vector<std::uint16_t> gate;  // batch * hidden
    std::vector<std::uint16_t> r;     // torch's x + gate * h, rows * hidden
  };
  std::vector<Residual> residual;  // beside modulate.cases

  const std::vector<TorchGoldenCase>& cases() const { return modulate.cases; }
  const Residual& residual_of(const TorchGoldenCase& c) const;
  exactune::Shape shape(const TorchGoldenCase& c) const;
  // x, h, and an embedding whose rows other than shift, scale and gate hold NaN.
  exactune::GatedResidualInputs inputs(const TorchGoldenCase& c) const;
};

// Reads <dir>/gated_residual_layer_norm_modulate.yaml and the data file it names.
GatedTorchGolden read_gated_torch_golden(const std::string& dir);

}  // namespace exactune_test
