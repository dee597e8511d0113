// The adaLN modulation the modulate ops share (adaln_modulation.hpp).
#include "adaln_modulation.hpp"

namespace exactune::torch_ops {

at::Tensor per_batch_row(const at::Tensor& t) { return t.dim() == 2 ? t.unsqueeze(1) : t; }

at::Tensor eager_layer_norm_modulate(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                                     double eps) {
  const at::Tensor y = at::layer_norm(x, {x.size(-1)}, std::nullopt, std::nullopt, eps);
  return y * (1 + per_batch_row(scale)) + per_batch_row(shift);
}

}  // namespace exactune::torch_ops
