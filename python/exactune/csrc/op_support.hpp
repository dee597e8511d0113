// What exactune's torch ops share (each op has a file of its own beside this
// one): the input signature its exactness gate keys on, the outputs a fused
// kernel writes, the text of a mismatch, and whether an eager call may skip
// the dispatcher.
#pragma once
#include <ATen/ATen.h>
#include <c10/core/DispatchKeySet.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <tuple>

#include <exactune/exactness_gate.hpp>

namespace exactune::torch_ops {

// Everything that can change which kernel runs or whether aten's chain takes
// another path: shapes, strides, dtypes, device, eps, pointer alignment. It
// has room for three 4-D tensors and more; a call of higher ranks (a video
// DiT's 5-D x, scale and shift) fills it, is marked `overflowed` and runs
// eager without a signature: no slot is ever written past the array.
struct Signature {
  std::array<std::int64_t, 40> values{};
  int used = 0;
  bool overflowed = false;

  void add(std::int64_t v) {
    if (used == static_cast<int>(values.size())) {
      overflowed = true;
      return;
    }
    values[used++] = v;
  }
  void add(const at::Tensor& t) {
    add(t.dim());
    for (std::int64_t d = 0; d < t.dim(); ++d) {
      add(t.size(d));
      add(t.stride(d));
    }
    add(static_cast<std::int64_t>(t.scalar_type()));
    add(static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 16));
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

using Gate = exactune::ExactnessGate<Signature, SignatureHash>;

using Gate = ExactnessGate<Signature, SignatureHash>;
using TensorPair = std::tuple<at::Tensor, at::Tensor>;

// Whether the current stream is capturing a CUDA graph.
bool capturing();

void* stream_of(const at::Tensor& t);

// A contiguous output like `t`, straight from the CUDA caching allocator: the
// dispatcher's round trip of at::empty is a visible share of a launch's host cost.
at::Tensor new_output(const at::Tensor& t);

// The out= variants' output: the caller's `out` where a kernel may write it
// (contiguous, like `t`, overlapping none of `inputs`: no variant is verified
// reading a row it writes), else a new one that the caller copies into `out`.
at::Tensor output_into(const at::Tensor& t, const at::Tensor* out, std::initializer_list<const at::Tensor*> inputs);

// An out= argument must hold the result: same shape, dtype and device as the
// input it mirrors (a layout of its own is allowed; the result is copied in).
void check_out(const at::Tensor& out, const at::Tensor& like, const char* what);

// printf-formatted text. (No iostreams here: on the GPU machine's torch, an
// ostringstream in an extension crashed inside libstdc++'s locale code.)
template <class... T>
std::string format(const char* pattern, T... values) {
  char text[512];
  std::snprintf(text, sizeof text, pattern, values...);
  return text;
}

// "" when every element has the same bits; else the first that differs.
std::string first_mismatch(const at::Tensor& fused, const at::Tensor& eager, const char* what, const char* variant);

// The first mismatch of either output of a two-output op ("" when both agree).
std::string first_mismatch_of_pair(const TensorPair& fused, const TensorPair& eager, const char* first_what,
                                   const char* second_what, const char* variant);

// The warning of a gate closed for good by a mismatch.
void warn_closed(const char* op, const std::string& why);

// A gate's state as JSON (exactune.torch.gate_status).
std::string describe_gate(const Gate& gate);

// A tensor the registered CUDA kernel would receive as it is: on CUDA, no
// autograd to record, no tensor subclass (a Python key: FakeTensor, ...), no
// functorch transform. Any other call goes through the dispatcher, so that a
// direct call behaves as the op does in every case.
bool plain_cuda(const at::Tensor& t);

// Whether a direct entry may call the op's CUDA kernel itself.
template <class... Tensors>
bool direct_serves(const Tensors&... tensors) {
  // A Python mode (a TorchDispatchMode, a fake mode) sees calls through the dispatcher only.
  return !c10::impl::tls_is_dispatch_key_included(c10::DispatchKey::Python) && (plain_cuda(tensors) && ...);
}

}  // namespace exactune::torch_ops
