// The adaLN modulation the modulate ops share (adaln_modulation.hpp).
#include "adaln_modulation.hpp"

#include "op_support.hpp"

namespace exactune::torch_ops {
namespace {

// A (batch, hidden) or (batch, 1, hidden) bf16 row per batch on x's device,
// hidden contiguous: its row stride (0 for one row shared by every batch), or
// nullopt when it is not such a tensor.
std::optional<std::int64_t> per_batch_row_stride(const at::Tensor& t, const at::Tensor& x) {
  const std::int64_t batch = x.size(0), hidden = x.size(2);
  const bool shaped = (t.dim() == 2 || (t.dim() == 3 && t.size(1) == 1)) && t.size(-1) == hidden &&
                      (t.size(0) == batch || t.size(0) == 1);
  if (!shaped || t.scalar_type() != at::kBFloat16 || t.device() != x.device() || (hidden > 1 && t.stride(-1) != 1)) {
    return std::nullopt;
  }
  return t.size(0) == 1 ? 0 : t.stride(0);
}

// A (batch, tokens, hidden) bf16 row per token of x (per-token modulation, as
// Wan 2.2's adaLN gives it), hidden contiguous and one row stride across
// tokens and batch elements: that stride, or nullopt.
std::optional<std::int64_t> per_token_row_stride(const at::Tensor& t, const at::Tensor& x) {
  const std::int64_t batch = x.size(0), tokens = x.size(1), hidden = x.size(2);
  if (t.dim() != 3 || t.size(0) != batch || t.size(1) != tokens || t.size(2) != hidden || tokens < 2 ||
      t.scalar_type() != at::kBFloat16 || t.device() != x.device() || (hidden > 1 && t.stride(2) != 1)) {
    return std::nullopt;
  }
  if (batch > 1 && t.stride(0) != t.stride(1) * tokens) return std::nullopt;
  return t.stride(1);
}

}  // namespace

at::Tensor per_batch_row(const at::Tensor& t) { return t.dim() == 2 ? t.unsqueeze(1) : t; }

at::Tensor eager_layer_norm_modulate(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                                     double eps) {
  const at::Tensor y = at::layer_norm(x, {x.size(-1)}, std::nullopt, std::nullopt, eps);
  return y * (1 + per_batch_row(scale)) + per_batch_row(shift);
}

std::optional<std::int64_t> modulation_row_stride(const at::Tensor& t, const at::Tensor& x, bool per_token) {
  return per_token ? per_token_row_stride(t, x) : per_batch_row_stride(t, x);
}

std::optional<ModulationRows> modulation_rows(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift) {
  if (x.dim() != 3 || x.scalar_type() != at::kBFloat16) return std::nullopt;
  const auto scale_stride = per_batch_row_stride(scale, x);
  const auto shift_stride = per_batch_row_stride(shift, x);
  if (scale_stride && shift_stride) return ModulationRows{*scale_stride, *shift_stride, false};
  if (scale_stride || shift_stride || !x.is_contiguous()) return std::nullopt;
  const auto scale_token_stride = per_token_row_stride(scale, x);
  const auto shift_token_stride = per_token_row_stride(shift, x);
  if (!scale_token_stride || !shift_token_stride) return std::nullopt;
  return ModulationRows{*scale_token_stride, *shift_token_stride, true};
}

exactune_layer_norm_modulate_args modulate_args(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                                                const ModulationRows& rows, double eps, const at::Tensor& out) {
  exactune_layer_norm_modulate_args args{};
  args.device = x.device().index();
  args.stream = stream_of(x);
  args.x = x.data_ptr();
  args.scale = scale.data_ptr();
  args.shift = shift.data_ptr();
  args.out = out.data_ptr();
  args.batch = rows.per_token ? x.size(0) * x.size(1) : x.size(0);
  args.tokens = rows.per_token ? 1 : x.size(1);
  args.hidden = x.size(2);
  for (int d = 0; d < 3; ++d) args.x_strides[d] = x.stride(d);
  if (rows.per_token) {
    args.x_strides[0] = x.size(2);  // (batch * tokens, 1, hidden), contiguous
    args.x_strides[1] = x.size(2);
  }
  args.scale_row_stride = rows.scale_row_stride;
  args.shift_row_stride = rows.shift_row_stride;
  args.eps = eps;
  return args;
}

}  // namespace exactune::torch_ops
