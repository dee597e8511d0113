// The adaLN modulation that layer_norm_modulate and the gated residual op
// share: the eager chain they reproduce, and where the scale and shift rows
// are (a row per batch element or a row per token), as the runtime's C ABI
// is told.
#pragma once
#include <ATen/ATen.h>

#include <cstdint>
#include <optional>

#include "layer_norm_modulate/runtime/exactune_layer_norm_modulate.h"

namespace exactune::torch_ops {

// A (batch, hidden) row as (batch, 1, hidden), for broadcasting against x as
// the eager chain is written: F.layer_norm(x) * (1 + scale) + shift.
at::Tensor per_batch_row(const at::Tensor& t);

// F.layer_norm(x, (hidden,), eps=eps) * (1 + scale) + shift, as eager runs it.
at::Tensor eager_layer_norm_modulate(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift, double eps);

// Where the rows of scale and shift are. Per token, x (contiguous) is served
// as (batch * tokens, 1, hidden): a batch element per token, each with its own row.
struct ModulationRows {
  std::int64_t scale_row_stride = 0;
  std::int64_t shift_row_stride = 0;
  bool per_token = false;
};

// scale's and shift's rows for a bf16 (batch, tokens, hidden) x: both a row
// per batch element ((batch, hidden) or (batch, 1, hidden), or one row shared
// by every batch element), or both a row per token of a contiguous x
// ((batch, tokens, hidden)); hidden contiguous, bf16, on x's device. nullopt
// for anything else.
std::optional<ModulationRows> modulation_rows(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift);

// A row of gate, scale or shift for x in the form `per_token` says, as
// modulation_rows takes it: its row stride, or nullopt when it is not one.
std::optional<std::int64_t> modulation_row_stride(const at::Tensor& t, const at::Tensor& x, bool per_token);

// The C ABI's arguments for x, its rows, eps and the output, on x's device and current stream.
exactune_layer_norm_modulate_args modulate_args(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                                                const ModulationRows& rows, double eps, const at::Tensor& out);

}  // namespace exactune::torch_ops
