// A tensor as exactune's torch ops read it: sizes, strides, element type,
// device and address, with no torch type, so that both bindings share the
// code that reads it (the torch extension of csrc/ and the torch-free DLPack
// binding of dlpack_ops/).
#pragma once
#include <cstdint>

namespace exactune::torch_ops {

// A tensor's shape, strides (in elements), dtype, device and address; rank at
// most 4 (a tensor of higher rank has ndim -1: the ops do not serve it).
struct TensorLayout {
  int ndim = 0;
  std::int64_t shape[4] = {};
  std::int64_t strides[4] = {};
  bool bf16 = false;
  std::int64_t dtype = 0;  // the element type, as a code of the binding's own
  int device = -1;         // CUDA device index; -1 for any other device
  const void* data = nullptr;

  std::int64_t size(int d) const { return shape[d < 0 ? ndim + d : d]; }
  std::int64_t stride(int d) const { return strides[d < 0 ? ndim + d : d]; }
  // Row-major without gaps (dimensions of size 1 take any stride).
  bool contiguous() const {
    std::int64_t expected = 1;
    for (int d = ndim - 1; d >= 0; --d) {
      if (shape[d] != 1 && strides[d] != expected) return false;
      expected *= shape[d];
    }
    return true;
  }
};

}  // namespace exactune::torch_ops
