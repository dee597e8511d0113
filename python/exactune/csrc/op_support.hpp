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

#include "signature.hpp"
#include "tensor_layout.hpp"

namespace exactune::torch_ops {

using Gate = exactune::ExactnessGate<Signature, SignatureHash>;

using Gate = ExactnessGate<Signature, SignatureHash>;
using TensorPair = std::tuple<at::Tensor, at::Tensor>;

// t's layout (tensor_layout.hpp); a tensor of rank above 4 gets ndim -1.
TensorLayout layout_of(const at::Tensor& t);

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
// Symbolic sizes are compared as expressions (the out= Meta kernels call it).
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
