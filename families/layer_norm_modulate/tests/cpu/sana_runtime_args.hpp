// Sana's problem as the runtime entries take it, on made-up 16-byte aligned
// addresses that their checks decide on without dereferencing: the contiguous
// entry's CPU tests and the token-major entry's start from it.
#pragma once
#include <cstdint>

#include "layer_norm_modulate/runtime/exactune_layer_norm_modulate.h"

namespace exactune_test {

inline void* fake(std::uintptr_t address) { return reinterpret_cast<void*>(address); }

enum class XMemory { contiguous, token_major };

// (2, 1024, 2240), scale and shift chunks of a (2, 6, 2240) embedding; x's
// memory (B, N, C) contiguous, or (B, C, N) as Sana's activations hold it.
inline exactune_layer_norm_modulate_args sana_runtime_args(XMemory memory) {
  exactune_layer_norm_modulate_args a{};
  a.x = fake(0x100000);
  a.scale = fake(0x200000);
  a.shift = fake(0x200000 + 2 * 2240);
  a.out = fake(0x300000);
  a.batch = 2;
  a.tokens = 1024;
  a.hidden = 2240;
  a.x_strides[0] = 1024 * 2240;
  a.x_strides[1] = memory == XMemory::token_major ? 1 : 2240;
  a.x_strides[2] = memory == XMemory::token_major ? 1024 : 1;
  a.scale_row_stride = a.shift_row_stride = 6 * 2240;
  a.eps = 1e-6;
  return a;
}

}  // namespace exactune_test
