// The adaLN modulation that layer_norm_modulate and the gated residual op
// share in the torch extension: the eager chain they reproduce, and the
// tensors' layouts for modulation_layout.hpp, which says where the scale and
// shift rows are (a row per batch element or a row per token) and how the
// runtime's C ABI is told.
#pragma once
#include <ATen/ATen.h>

#include "modulation_layout.hpp"

namespace exactune::torch_ops {

// A (batch, hidden) row as (batch, 1, hidden), for broadcasting against x as
// the eager chain is written: F.layer_norm(x) * (1 + scale) + shift.
at::Tensor per_batch_row(const at::Tensor& t);

// F.layer_norm(x, (hidden,), eps=eps) * (1 + scale) + shift, as eager runs it.
at::Tensor eager_layer_norm_modulate(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift, double eps);

// The C ABI's arguments for x, its rows, eps and the output, on x's device and current stream.
exactune_layer_norm_modulate_args modulate_args(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                                                const ModulationRows& rows, double eps, const at::Tensor& out);

}  // namespace exactune::torch_ops
