#include "layer_norm_modulate/runtime/modulate_runtime_checks.hpp"

#include <fmt/format.h>

#include <climits>
#include <cmath>

#include <exactune/error.hpp>
#include <exactune/runtime_entry.hpp>

namespace exactune::modulate_runtime {
namespace {

constexpr int kMaxHidden = 8192;  // the largest size the tables are tuned and proven for

bool is_token_major(const exactune_layer_norm_modulate_args& a) {
  // (batch, hidden, tokens) memory, seen as (batch, tokens, hidden): a
  // dimension of size 1 may have any stride, as torch's is_contiguous() says.
  const std::int64_t sizes[] = {a.batch, a.hidden, a.tokens};
  const std::int64_t strides[] = {a.x_strides[0], a.x_strides[2], a.x_strides[1]};
  return is_contiguous(sizes, strides, 3);
}

}  // namespace

const exactune_layer_norm_modulate_args& checked(const exactune_layer_norm_modulate_args* args) {
  if (!args) throw input_error("args is NULL");
  const exactune_layer_norm_modulate_args& a = *args;
  if (!a.x || !a.scale || !a.shift || !a.out) throw input_error("x, scale, shift and out must not be NULL");
  if (a.batch < 0 || a.tokens < 0 || a.hidden < 1 || a.device < 0) {
    throw input_error(fmt::format("batch {}, tokens {}, hidden {}, device {}: sizes must be >= 0, hidden >= 1", a.batch,
                                  a.tokens, a.hidden, a.device));
  }
  if (!std::isfinite(a.eps) || a.eps < 0) throw input_error(fmt::format("eps {} is not a finite value >= 0", a.eps));
  return a;
}

std::int64_t row_stride(const exactune_layer_norm_modulate_args& a) { return a.batch > 1 ? a.scale_row_stride : 0; }

unsigned alignment(const exactune_layer_norm_modulate_args& a, XLayout layout) {
  const auto address = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
  const unsigned rows =
      common_alignment(address(a.out), address(a.scale), address(a.shift), a.hidden * 2, row_stride(a) * 2);
  return layout == XLayout::token_major ? rows : std::min(rows, common_alignment(address(a.x)));
}

std::string not_served_because(const exactune_layer_norm_modulate_args& a, unsigned alignment, XLayout layout) {
  if (a.hidden % 4 != 0 || a.hidden > kMaxHidden) {
    return fmt::format(
        "hidden {} (served: a multiple of 4 up to {}; aten's vectorized LayerNorm needs hidden % 4 == 0)", a.hidden,
        kMaxHidden);
  }
  const std::int64_t sizes[] = {a.batch, a.tokens, a.hidden};
  if (layout == XLayout::contiguous && !is_contiguous(sizes, a.x_strides, 3)) {
    return fmt::format("x strides ({}, {}, {}) are not contiguous (aten's LayerNorm would copy x first)",
                       a.x_strides[0], a.x_strides[1], a.x_strides[2]);
  }
  if (layout == XLayout::token_major && !is_token_major(a)) {
    return fmt::format(
        "x strides ({}, {}, {}) are not token-major ((batch, hidden, tokens) memory: strides "
        "(hidden * tokens, 1, tokens))",
        a.x_strides[0], a.x_strides[1], a.x_strides[2]);
  }
  if (a.batch > 1 && a.scale_row_stride != a.shift_row_stride) {
    return fmt::format("scale and shift row strides differ ({} and {}); the kernel takes one", a.scale_row_stride,
                       a.shift_row_stride);
  }
  if (a.batch * a.tokens > INT_MAX || a.scale_row_stride < 0) {
    return fmt::format("{} rows or a negative row stride", a.batch * a.tokens);
  }
  if (alignment < 8) {
    return fmt::format("{} (or a row stride) is only {}-byte aligned; aten's vectorized LayerNorm needs 8",
                       layout == XLayout::contiguous ? "x, out, scale or shift" : "out, scale or shift", alignment);
  }
  return "";
}

}  // namespace exactune::modulate_runtime
