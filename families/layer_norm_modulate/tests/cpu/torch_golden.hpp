// The torch golden data of the LayerNorm + modulate family (tests/data/torch_golden,
// written on the GPU machine by tests/torch/make_torch_golden.py): per case,
// torch's inputs and its bits for mean, rstd, the LayerNorm output and the
// eager adaLN chain, plus the GPU's rsqrtf around each row's var + eps.
// Reading checks the manifest against the data (sha256, sizes, offsets:
// tests/support/torch_golden_data.hpp) and throws exactune::error naming the
// file on any mismatch.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <exactune/shapes.hpp>

#include "layer_norm_modulate/layer_norm_modulate_inputs.hpp"

namespace exactune_test {

struct TorchGoldenCase {
  std::string name;  // e.g. "d2244_o100_a4_e1e-6"
  int hidden = 0;
  double eps = 0;
  std::vector<std::uint16_t> x, shift, scale;  // bf16 bits; shift/scale: batch * hidden
  std::vector<std::uint32_t> mean, rstd;       // float32 bits, per row
  std::vector<std::uint16_t> layer_norm, out;  // bf16 bits, rows * hidden
  std::vector<std::uint32_t> rsqrt_window;     // rows * window pairs: input bits, rsqrtf bits
};

struct TorchGolden {
  std::string source;  // "torch 2.11.0+cu130 (CUDA 13.0) on NVIDIA H200"
  int batch = 0, tokens = 0, modulation_rows = 0, shift_row = 0, scale_row = 0;
  std::vector<TorchGoldenCase> cases;

  int rows() const { return batch * tokens; }
  // The problem of one case, as the family's workload takes it.
  exactune::Shape shape(const TorchGoldenCase& c) const;
  // Its inputs: x, and an embedding whose rows other than shift and scale hold
  // NaN, so that a kernel reading the wrong row shows.
  exactune::ModulateInputs inputs(const TorchGoldenCase& c) const;
  const TorchGoldenCase& find(const std::string& name) const;
};

// Reads <dir>/layer_norm_modulate.yaml and the data file it names.
TorchGolden read_torch_golden(const std::string& dir);

// Every case's rsqrt windows, as EXACTUNE_HOST_RSQRTF_TABLE reads them.
std::vector<std::uint32_t> rsqrtf_pairs(const TorchGolden& golden);

}  // namespace exactune_test
