// The checks that the runtime entries of the LayerNorm + modulate families
// (this one's and the token-major one's) make on exactune_layer_norm_modulate_args
// before any GPU work: argument errors throw exactune::input_error; a problem
// aten would run through another kernel, or that no variant can take, is
// named by not_served_because.
#pragma once
#include <cstdint>
#include <string>

#include "layer_norm_modulate/runtime/exactune_layer_norm_modulate.h"

namespace exactune::modulate_runtime {

// How x lies in memory: (batch, tokens, hidden) contiguous, or token-major
// (batch, hidden, tokens) memory: strides (hidden * tokens, 1, tokens).
enum class XLayout { contiguous, token_major };

// *args, once its pointers, sizes, device and eps describe a problem.
const exactune_layer_norm_modulate_args& checked(const exactune_layer_norm_modulate_args* args);

// Scale and shift's row stride as the kernels take it: 0 when one row serves every batch.
std::int64_t row_stride(const exactune_layer_norm_modulate_args& a);

// The widest load every row of the data the kernel reads with its row loads
// takes: out, scale and shift always, x too when it is contiguous (a
// token-major x is read along tokens, a token at a time where misaligned).
unsigned alignment(const exactune_layer_norm_modulate_args& a, XLayout layout = XLayout::contiguous);

// Why aten would not run this problem through the kernel the variants
// reproduce, or why no variant can; "" when it is served.
std::string not_served_because(const exactune_layer_norm_modulate_args& a, unsigned alignment, XLayout layout);

}  // namespace exactune::modulate_runtime
