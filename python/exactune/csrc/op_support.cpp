// The shared pieces of exactune's torch ops (op_support.hpp).
#include "op_support.hpp"

#include <ATen/MemoryOverlap.h>
#include <ATen/core/grad_mode.h>
#include <ATen/cuda/EmptyTensor.h>
#include <c10/cuda/CUDAGraphsC10Utils.h>
#include <c10/cuda/CUDAStream.h>

#include <optional>

namespace exactune::torch_ops {

TensorLayout layout_of(const at::Tensor& t) {
  TensorLayout layout;
  if (t.dim() > 4) {
    layout.ndim = -1;
    return layout;
  }
  layout.ndim = static_cast<int>(t.dim());
  for (int d = 0; d < layout.ndim; ++d) {
    layout.shape[d] = t.size(d);
    layout.strides[d] = t.stride(d);
  }
  layout.bf16 = t.scalar_type() == at::kBFloat16;
  layout.dtype = static_cast<std::int64_t>(t.scalar_type());
  layout.device = t.is_cuda() ? t.device().index() : -1;
  layout.data = t.data_ptr();
  return layout;
}

bool capturing() { return c10::cuda::currentStreamCaptureStatusMayInitCtx() != c10::cuda::CaptureStatus::None; }

void* stream_of(const at::Tensor& t) { return c10::cuda::getCurrentCUDAStream(t.device().index()).stream(); }

at::Tensor new_output(const at::Tensor& t) {
  return at::Tensor(at::detail::empty_cuda(t.sizes(), t.scalar_type(), t.device(), std::nullopt));
}

at::Tensor output_into(const at::Tensor& t, const at::Tensor* out, std::initializer_list<const at::Tensor*> inputs) {
  if (out == nullptr || !out->is_contiguous() || out->sizes() != t.sizes() || out->scalar_type() != t.scalar_type() ||
      out->device() != t.device()) {
    return new_output(t);
  }
  for (const at::Tensor* input : inputs) {
    if (at::get_overlap_status(*out, *input) != at::MemOverlapStatus::No) return new_output(t);
  }
  return *out;
}

void check_out(const at::Tensor& out, const at::Tensor& like, const char* what) {
  // Sizes compared as SymInts: the out= Meta kernels check tensors of symbolic sizes (torch.compile's dynamic
  // shapes), where sizes() throws.
  TORCH_SYM_CHECK(c10::sym_equals(out.sym_sizes(), like.sym_sizes()),
                  std::string("exactune: ") + what + " must have the shape, dtype and device of the result");
  TORCH_CHECK(out.scalar_type() == like.scalar_type() && out.device() == like.device(),
              std::string("exactune: ") + what + " must have the shape, dtype and device of the result");
}

std::string first_mismatch(const at::Tensor& fused, const at::Tensor& eager, const char* what, const char* variant) {
  const at::Tensor a = fused.contiguous().view(at::kShort).flatten();
  const at::Tensor b = eager.contiguous().view(at::kShort).flatten();
  const std::string prefix = std::string(what) + ": the fused kernel " + variant + " differs from the eager chain";
  if (a.sizes() != b.sizes()) return prefix + " in shape";
  if (at::equal(a, b)) return "";
  const at::Tensor differ = a.ne(b);
  const long long count = differ.sum().item<std::int64_t>();
  const long long index = differ.nonzero()[0][0].item<std::int64_t>();
  const long long row_length = eager.size(-1);
  const auto bits = [](const at::Tensor& t, long long i) { return t[i].item<std::int16_t>() & 0xffff; };
  const auto value = [](const at::Tensor& t, long long i) {
    return static_cast<double>(t.contiguous().flatten()[i].to(at::kFloat).item<float>());
  };
  return prefix + format(
                      " at row %lld, column %lld: fused 0x%04x (%g), eager 0x%04x (%g); %lld of %lld elements "
                      "differ",
                      index / row_length, index % row_length, bits(a, index), value(fused, index), bits(b, index),
                      value(eager, index), count, static_cast<long long>(a.numel()));
}

void warn_closed(const char* op, const std::string& why) {
  // One string argument: c10::str passes it through without a stream.
  const std::string message =
      std::string("exactune: ") + op + " runs the eager chain from now on (fused path disabled for good): " + why;
  TORCH_WARN(message);
}

namespace {

// A text as a JSON string's contents: quotes and backslashes become ', control characters spaces.
std::string json_safe(std::string text) {
  for (char& c : text) {
    if (c == '"' || c == '\\') c = '\'';
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return text;
}

}  // namespace

std::string describe_gate(const Gate& gate) {
  const std::string reason = json_safe(gate.disabled_because());
  const std::string failure = json_safe(gate.last_failure());
  return format("{\"enabled\": %s, \"verified\": %zu, \"unserved\": %zu, \"failures\": %zu, \"disabled_because\": \"",
                gate.enabled() ? "true" : "false", gate.verified_count(), gate.unserved_count(), gate.failure_count()) +
         reason + "\", \"last_failure\": \"" + failure + "\"}";
}

std::string first_mismatch_of_pair(const TensorPair& fused, const TensorPair& eager, const char* first_what,
                                   const char* second_what, const char* variant) {
  const std::string why = first_mismatch(std::get<0>(fused), std::get<0>(eager), first_what, variant);
  return why.empty() ? first_mismatch(std::get<1>(fused), std::get<1>(eager), second_what, variant) : why;
}

bool plain_cuda(const at::Tensor& t) {
  const c10::DispatchKeySet keys = t.key_set();
  return t.is_cuda() && !(t.requires_grad() && at::GradMode::is_enabled()) && !keys.has_any(c10::python_ks) &&
         !keys.has_any(c10::functorch_transforms_ks);
}

}  // namespace exactune::torch_ops
