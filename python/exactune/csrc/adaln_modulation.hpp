// The eager chain that layer_norm_modulate and the gated residual op share
// in the torch extension; where their scale and shift rows are, and how the
// runtime's C ABI is told, is modulation_layout.hpp's, on the tensors' layouts.
#pragma once
#include <ATen/ATen.h>

#include "modulation_layout.hpp"

namespace exactune::torch_ops {

// A (batch, hidden) row as (batch, 1, hidden), for broadcasting against x as
// the eager chain is written: F.layer_norm(x) * (1 + scale) + shift.
at::Tensor per_batch_row(const at::Tensor& t);

// F.layer_norm(x, (hidden,), eps=eps) * (1 + scale) + shift, as eager runs it.
at::Tensor eager_layer_norm_modulate(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift, double eps);

}  // namespace exactune::torch_ops
