// The key of an op's exactness gate: everything that can change which kernel
// runs or whether aten's chain takes another path (shapes, strides, dtypes,
// devices, eps, pointer alignment), with no torch type, so that both bindings
// share it. It has room for five 4-D tensors and more; a call of a rank the
// ops do not describe (a video DiT's 5-D x) is marked `overflowed` and runs
// eager without a signature: no slot is ever written past the array.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tensor_layout.hpp"

namespace exactune::torch_ops {

struct Signature {
  std::array<std::int64_t, 64> values{};
  int used = 0;
  bool overflowed = false;

  void add(std::int64_t v) {
    if (used == static_cast<int>(values.size())) {
      overflowed = true;
      return;
    }
    values[used++] = v;
  }
  void add(const TensorLayout& t) {
    if (t.ndim < 0) {
      overflowed = true;
      return;
    }
    add(t.ndim);
    for (int d = 0; d < t.ndim; ++d) {
      add(t.shape[d]);
      add(t.strides[d]);
    }
    add(t.dtype);
    add(t.device);
    add(static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(t.data) % 16));
  }
  void add_real(double v) {
    std::int64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    add(bits);
  }
  bool operator==(const Signature& other) const {
    return used == other.used && overflowed == other.overflowed && values == other.values;
  }
};

struct SignatureHash {
  std::size_t operator()(const Signature& s) const noexcept {
    std::size_t h = 1469598103934665603ull;
    for (int i = 0; i < s.used; ++i) h = (h ^ static_cast<std::size_t>(s.values[i])) * 1099511628211ull;
    return h;
  }
};

}  // namespace exactune::torch_ops
