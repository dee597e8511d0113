// Where the adaLN ops' scale and shift rows are, read from the tensors'
// sizes and strides alone: no torch type here, so that both bindings share it
// (the torch extension of csrc/, through adaln_modulation, and the torch-free
// DLPack binding of dlpack_ops/). A row per batch element ((batch, hidden) or
// (batch, 1, hidden), or one row shared by every batch element), or a row per
// token of a contiguous x ((batch, tokens, hidden): per-token modulation,
// served as a batch element per token); hidden contiguous, bf16, on x's device.
#pragma once
#include <cstdint>
#include <optional>

#include "layer_norm_modulate/runtime/exactune_layer_norm_modulate.h"
#include "tensor_layout.hpp"

namespace exactune::torch_ops {

struct ModulationRows {
  std::int64_t scale_row_stride = 0;
  std::int64_t shift_row_stride = 0;
  bool per_token = false;
};

// A row per batch element for x: its row stride (0 for one row shared by every batch), or nullopt.
inline std::optional<std::int64_t> per_batch_row_stride(const TensorLayout& t, const TensorLayout& x) {
  const std::int64_t batch = x.size(0), hidden = x.size(2);
  const bool shaped = (t.ndim == 2 || (t.ndim == 3 && t.size(1) == 1)) && t.size(-1) == hidden &&
                      (t.size(0) == batch || t.size(0) == 1);
  if (!shaped || !t.bf16 || t.device != x.device || (hidden > 1 && t.stride(-1) != 1)) return std::nullopt;
  return t.size(0) == 1 ? 0 : t.stride(0);
}

// A row per token of x, one row stride across tokens and batch elements: that stride, or nullopt.
inline std::optional<std::int64_t> per_token_row_stride(const TensorLayout& t, const TensorLayout& x) {
  const std::int64_t batch = x.size(0), tokens = x.size(1), hidden = x.size(2);
  if (t.ndim != 3 || t.size(0) != batch || t.size(1) != tokens || t.size(2) != hidden || tokens < 2 || !t.bf16 ||
      t.device != x.device || (hidden > 1 && t.stride(2) != 1)) {
    return std::nullopt;
  }
  if (batch > 1 && t.stride(0) != t.stride(1) * tokens) return std::nullopt;
  return t.stride(1);
}

// A row of gate, scale or shift in the form `per_token` says: its row stride, or nullopt.
inline std::optional<std::int64_t> modulation_row_stride(const TensorLayout& t, const TensorLayout& x, bool per_token) {
  return per_token ? per_token_row_stride(t, x) : per_batch_row_stride(t, x);
}

// scale's and shift's rows for a bf16 (batch, tokens, hidden) x, both of one form; nullopt for anything else.
inline std::optional<ModulationRows> modulation_rows(const TensorLayout& x, const TensorLayout& scale,
                                                     const TensorLayout& shift) {
  if (x.ndim != 3 || !x.bf16) return std::nullopt;
  const auto scale_stride = per_batch_row_stride(scale, x);
  const auto shift_stride = per_batch_row_stride(shift, x);
  if (scale_stride && shift_stride) return ModulationRows{*scale_stride, *shift_stride, false};
  if (scale_stride || shift_stride || !x.contiguous()) return std::nullopt;
  const auto scale_token_stride = per_token_row_stride(scale, x);
  const auto shift_token_stride = per_token_row_stride(shift, x);
  if (!scale_token_stride || !shift_token_stride) return std::nullopt;
  return ModulationRows{*scale_token_stride, *shift_token_stride, true};
}

// A token-major x (Sana's (B, C, N) memory seen as (B, N, C)), which the
// token-major family reads in place; the contiguous family serves the rest.
inline bool token_major(const TensorLayout& x, const ModulationRows& rows) {
  return !rows.per_token && x.size(1) > 1 && x.size(2) > 1 && x.stride(2) == x.size(1) && x.stride(1) == 1;
}

// The C ABI's arguments for x, its rows, eps and the output (stream and device left to the caller).
inline exactune_layer_norm_modulate_args modulate_args(const TensorLayout& x, const TensorLayout& scale,
                                                       const TensorLayout& shift, const ModulationRows& rows,
                                                       double eps, void* out) {
  exactune_layer_norm_modulate_args args{};
  args.device = x.device;
  args.x = x.data;
  args.scale = scale.data;
  args.shift = shift.data;
  args.out = out;
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
