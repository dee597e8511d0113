// The adaLN modulation the modulate ops share (adaln_modulation.hpp).
#include "adaln_modulation.hpp"

#include "op_support.hpp"

namespace exactune::torch_ops {

at::Tensor per_batch_row(const at::Tensor& t) { return t.dim() == 2 ? t.unsqueeze(1) : t; }

at::Tensor eager_layer_norm_modulate(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                                     double eps) {
  const at::Tensor y = at::layer_norm(x, {x.size(-1)}, std::nullopt, std::nullopt, eps);
  return y * (1 + per_batch_row(scale)) + per_batch_row(shift);
}

exactune_layer_norm_modulate_args modulate_args(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                                                const ModulationRows& rows, double eps, const at::Tensor& out) {
  exactune_layer_norm_modulate_args args =
      torch_ops::modulate_args(layout_of(x), layout_of(scale), layout_of(shift), rows, eps, out.data_ptr());
  args.device = x.device().index();
  args.stream = stream_of(x);
  return args;
}

}  // namespace exactune::torch_ops
