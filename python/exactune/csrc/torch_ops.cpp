// exactune's torch ops: torch.ops.exactune.layer_norm_modulate and
// torch.ops.exactune.qk_head_layer_norm, registered in C++ so that a call
// costs the dispatcher and one kernel launch, with no Python on the hot path.
//
// Each op goes through an ExactnessGate (include/exactune/exactness_gate.hpp):
// a new input signature is verified once against the eager chain, bit for
// bit; a mismatch or a failure disables the op's fused path for good, with a
// warning that names the first differing element. Inputs the runtime does not
// serve (not bf16, not CUDA, misaligned, a size or layout aten runs through
// another kernel) run the eager chain and never raise. The Meta kernels make
// the ops traceable by torch.compile; the CPU kernels are the eager chain.
//
// The same ops are also pybind11 functions of this extension module (the
// direct entries, at the end), which exactune.torch calls in eager mode: the
// dispatcher's boxed path is most of a call's host cost.
#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/cuda/EmptyTensor.h>
#include <c10/core/DispatchKeySet.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <c10/cuda/CUDAGraphsC10Utils.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/extension.h>
#include <torch/library.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include <exactune/exactness_gate.hpp>

#include "layer_norm_modulate/runtime/exactune_layer_norm_modulate.h"
#include "layer_norm_modulate_token_major/runtime/exactune_layer_norm_modulate_token_major.h"
#include "qk_head_layer_norm/runtime/exactune_qk_head_layer_norm.h"

namespace {

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

bool capturing() { return c10::cuda::currentStreamCaptureStatusMayInitCtx() != c10::cuda::CaptureStatus::None; }

void* stream_of(const at::Tensor& t) { return c10::cuda::getCurrentCUDAStream(t.device().index()).stream(); }

// A contiguous output like `t`, straight from the CUDA caching allocator: the
// dispatcher's round trip of at::empty is a visible share of a launch's host cost.
at::Tensor new_output(const at::Tensor& t) {
  return at::Tensor(at::detail::empty_cuda(t.sizes(), t.scalar_type(), t.device(), std::nullopt));
}

// The out= variants' output: the caller's `out` where a kernel may write it
// (contiguous, like `t`, overlapping none of `inputs`: no variant is verified
// reading a row it writes), else a new one that the caller copies into `out`.
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

// An out= argument must hold the result: same shape, dtype and device as the
// input it mirrors (a layout of its own is allowed; the result is copied in).
void check_out(const at::Tensor& out, const at::Tensor& like, const char* what) {
  TORCH_CHECK(out.sizes() == like.sizes() && out.scalar_type() == like.scalar_type() && out.device() == like.device(),
              std::string("exactune: ") + what + " must have the shape, dtype and device of the result");
}

// printf-formatted text. (No iostreams here: on the GPU machine's torch, an
// ostringstream in an extension crashed inside libstdc++'s locale code.)
template <class... T>
std::string format(const char* pattern, T... values) {
  char text[512];
  std::snprintf(text, sizeof text, pattern, values...);
  return text;
}

// "" when every element has the same bits; else the first that differs.
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

// A text as a JSON string's contents: quotes and backslashes become ', control characters spaces.
std::string json_safe(std::string text) {
  for (char& c : text) {
    if (c == '"' || c == '\\') c = '\'';
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return text;
}

std::string describe_gate(const Gate& gate) {
  const std::string reason = json_safe(gate.disabled_because());
  const std::string failure = json_safe(gate.last_failure());
  return format("{\"enabled\": %s, \"verified\": %zu, \"unserved\": %zu, \"failures\": %zu, \"disabled_because\": \"",
                gate.enabled() ? "true" : "false", gate.verified_count(), gate.unserved_count(), gate.failure_count()) +
         reason + "\", \"last_failure\": \"" + failure + "\"}";
}

// ------------------------------------------------------------ layer_norm_modulate

Gate& modulate_gate() {
  static Gate gate;
  return gate;
}

// scale or shift as (batch, 1, hidden) for broadcasting against x, as the
// eager chain is written: F.layer_norm(x) * (1 + scale) + shift.
at::Tensor per_batch_row(const at::Tensor& t) { return t.dim() == 2 ? t.unsqueeze(1) : t; }

at::Tensor eager_layer_norm_modulate(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                                     double eps) {
  const at::Tensor y = at::layer_norm(x, {x.size(-1)}, std::nullopt, std::nullopt, eps);
  return y * (1 + per_batch_row(scale)) + per_batch_row(shift);
}

// A (batch, hidden) or (batch, 1, hidden) bf16 row per batch on x's device,
// hidden contiguous: its row stride (0 for one row shared by every batch), or
// nullopt when it is not such a tensor.
std::optional<std::int64_t> modulation_row_stride(const at::Tensor& t, const at::Tensor& x) {
  const std::int64_t batch = x.size(0), hidden = x.size(2);
  const bool shaped = (t.dim() == 2 || (t.dim() == 3 && t.size(1) == 1)) && t.size(-1) == hidden &&
                      (t.size(0) == batch || t.size(0) == 1);
  if (!shaped || t.scalar_type() != at::kBFloat16 || t.device() != x.device() || (hidden > 1 && t.stride(-1) != 1)) {
    return std::nullopt;
  }
  return t.size(0) == 1 ? 0 : t.stride(0);
}

// A (batch, tokens, hidden) bf16 scale or shift with a row per token of x
// (per-token modulation, as Wan 2.2's adaLN gives it), hidden contiguous and
// one row stride across tokens and batch elements: that stride, or nullopt.
// The family serves it as x of (batch * tokens, 1, hidden): a batch element per
// token, each with its own row.
std::optional<std::int64_t> per_token_row_stride(const at::Tensor& t, const at::Tensor& x) {
  const std::int64_t batch = x.size(0), tokens = x.size(1), hidden = x.size(2);
  if (t.dim() != 3 || t.size(0) != batch || t.size(1) != tokens || t.size(2) != hidden || tokens < 2 ||
      t.scalar_type() != at::kBFloat16 || t.device() != x.device() || (hidden > 1 && t.stride(2) != 1)) {
    return std::nullopt;
  }
  if (batch > 1 && t.stride(0) != t.stride(1) * tokens) return std::nullopt;
  return t.stride(1);
}

thread_local bool last_modulate_entry_was_token_major = false;

// The variant the op's last fused launch on this thread ran, from the entry it called.
const char* last_modulate_variant() {
  return last_modulate_entry_was_token_major ? exactune_layer_norm_modulate_token_major_last_variant()
                                             : exactune_layer_norm_modulate_last_variant();
}

std::optional<at::Tensor> fused_layer_norm_modulate(const at::Tensor& x, const at::Tensor& scale,
                                                    const at::Tensor& shift, double eps,
                                                    const at::Tensor* into = nullptr) {
  if (x.dim() != 3 || x.scalar_type() != at::kBFloat16) return std::nullopt;
  auto scale_stride = modulation_row_stride(scale, x);
  auto shift_stride = modulation_row_stride(shift, x);
  // Per-token modulation of a contiguous x: a batch element per token.
  bool per_token = false;
  if (!scale_stride && !shift_stride && x.is_contiguous()) {
    scale_stride = per_token_row_stride(scale, x);
    shift_stride = per_token_row_stride(shift, x);
    per_token = scale_stride && shift_stride;
  }
  if (!scale_stride || !shift_stride) return std::nullopt;
  at::Tensor out = output_into(x, into, {&x, &scale, &shift});
  exactune_layer_norm_modulate_args args{};
  args.device = x.device().index();
  args.stream = stream_of(x);
  args.x = x.data_ptr();
  args.scale = scale.data_ptr();
  args.shift = shift.data_ptr();
  args.out = out.data_ptr();
  args.batch = per_token ? x.size(0) * x.size(1) : x.size(0);
  args.tokens = per_token ? 1 : x.size(1);
  args.hidden = x.size(2);
  for (int d = 0; d < 3; ++d) args.x_strides[d] = x.stride(d);
  if (per_token) {
    args.x_strides[0] = x.size(2);  // (batch * tokens, 1, hidden), contiguous
    args.x_strides[1] = x.size(2);
  }
  args.scale_row_stride = *scale_stride;
  args.shift_row_stride = *shift_stride;
  args.eps = eps;
  // A token-major x (Sana's (B, C, N) memory seen as (B, N, C)) goes to the
  // family that reads it in place; any other layout to the contiguous one,
  // which serves it only when contiguous.
  const bool token_major = !per_token && x.size(1) > 1 && x.size(2) > 1 && x.stride(2) == x.size(1) && x.stride(1) == 1;
  const int status =
      token_major ? exactune_layer_norm_modulate_token_major(&args) : exactune_layer_norm_modulate(&args);
  if (status == EXACTUNE_NOT_SERVED) return std::nullopt;
  if (status != EXACTUNE_OK) throw std::runtime_error(exactune_runtime_last_error());
  last_modulate_entry_was_token_major = token_major;
  return out;
}

// The gate's call for x, scale and shift, the fused kernel writing `into`
// where it can (the out= variant; its layout is then part of the signature).
at::Tensor gated_layer_norm_modulate(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift, double eps,
                                     const at::Tensor* into) {
  const c10::cuda::CUDAGuard device(x.device());
  Signature signature;
  for (const at::Tensor* t : {&x, &scale, &shift}) signature.add(*t);
  if (into) signature.add(*into);
  signature.add(x.device().index());
  signature.add_real(eps);
  if (signature.overflowed) return eager_layer_norm_modulate(x, scale, shift, eps);
  return modulate_gate().call(
      signature, capturing, [&] { return fused_layer_norm_modulate(x, scale, shift, eps, into); },
      [&] { return eager_layer_norm_modulate(x, scale, shift, eps); },
      [](const at::Tensor& fused, const at::Tensor& eager) {
        return first_mismatch(fused, eager, "layer_norm_modulate", last_modulate_variant());
      },
      [](const std::string& why) { warn_closed("layer_norm_modulate", why); });
}

at::Tensor layer_norm_modulate_cuda(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift, double eps) {
  return gated_layer_norm_modulate(x, scale, shift, eps, nullptr);
}

at::Tensor& layer_norm_modulate_out_cuda(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                                         double eps, at::Tensor& out) {
  check_out(out, x, "layer_norm_modulate's out");
  const at::Tensor result = gated_layer_norm_modulate(x, scale, shift, eps, &out);
  if (!result.is_same(out)) out.copy_(result);
  return out;
}

at::Tensor& layer_norm_modulate_out_cpu(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                                        double eps, at::Tensor& out) {
  check_out(out, x, "layer_norm_modulate's out");
  return out.copy_(eager_layer_norm_modulate(x, scale, shift, eps));
}

at::Tensor& layer_norm_modulate_out_meta(const at::Tensor& x, const at::Tensor&, const at::Tensor&, double,
                                         at::Tensor& out) {
  check_out(out, x, "layer_norm_modulate's out");
  return out;
}

at::Tensor layer_norm_modulate_meta(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift, double) {
  TORCH_CHECK(x.dim() == 3, "exactune.layer_norm_modulate: x must be (batch, tokens, hidden)");
  TORCH_CHECK(scale.size(-1) == x.size(-1) && shift.size(-1) == x.size(-1),
              "exactune.layer_norm_modulate: scale and shift rows must have x's hidden size");
  return at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
}

// ------------------------------------------------------------ qk_head_layer_norm

Gate& qk_gate() {
  static Gate gate;
  return gate;
}

using TensorPair = std::tuple<at::Tensor, at::Tensor>;

TensorPair eager_qk_head_layer_norm(const at::Tensor& q, const at::Tensor& k, double eps) {
  return {at::layer_norm(q, {q.size(-1)}, std::nullopt, std::nullopt, eps),
          at::layer_norm(k, {k.size(-1)}, std::nullopt, std::nullopt, eps)};
}

std::optional<TensorPair> fused_qk_head_layer_norm(const at::Tensor& q, const at::Tensor& k, double eps,
                                                   const at::Tensor* q_into = nullptr,
                                                   const at::Tensor* k_into = nullptr) {
  if (q.dim() != 4 || q.sizes() != k.sizes() || q.scalar_type() != at::kBFloat16 || k.scalar_type() != at::kBFloat16 ||
      k.device() != q.device()) {
    return std::nullopt;
  }
  at::Tensor q_out = output_into(q, q_into, {&q, &k});
  at::Tensor k_out = output_into(k, k_into, {&q, &k, &q_out});
  exactune_qk_head_layer_norm_args args{};
  args.device = q.device().index();
  args.stream = stream_of(q);
  args.q = q.data_ptr();
  args.k = k.data_ptr();
  args.q_out = q_out.data_ptr();
  args.k_out = k_out.data_ptr();
  args.batch = q.size(0);
  args.tokens = q.size(1);
  args.heads = q.size(2);
  args.head_dim = q.size(3);
  for (int d = 0; d < 4; ++d) {
    args.q_strides[d] = q.stride(d);
    args.k_strides[d] = k.stride(d);
  }
  args.eps = eps;
  const int status = exactune_qk_head_layer_norm(&args);
  if (status == EXACTUNE_NOT_SERVED) return std::nullopt;
  if (status != EXACTUNE_OK) throw std::runtime_error(exactune_runtime_last_error());
  return TensorPair{q_out, k_out};
}

TensorPair gated_qk_head_layer_norm(const at::Tensor& q, const at::Tensor& k, double eps, const at::Tensor* q_into,
                                    const at::Tensor* k_into) {
  const c10::cuda::CUDAGuard device(q.device());
  Signature signature;
  for (const at::Tensor* t : {&q, &k, q_into, k_into}) {
    if (t) signature.add(*t);
  }
  signature.add(q.device().index());
  signature.add_real(eps);
  if (signature.overflowed) return eager_qk_head_layer_norm(q, k, eps);
  return qk_gate().call(
      signature, capturing, [&] { return fused_qk_head_layer_norm(q, k, eps, q_into, k_into); },
      [&] { return eager_qk_head_layer_norm(q, k, eps); },
      [](const TensorPair& fused, const TensorPair& eager) {
        const char* variant = exactune_qk_head_layer_norm_last_variant();
        std::string why = first_mismatch(std::get<0>(fused), std::get<0>(eager), "qk_head_layer_norm (q)", variant);
        return why.empty() ? first_mismatch(std::get<1>(fused), std::get<1>(eager), "qk_head_layer_norm (k)", variant)
                           : why;
      },
      [](const std::string& why) { warn_closed("qk_head_layer_norm", why); });
}

TensorPair qk_head_layer_norm_cuda(const at::Tensor& q, const at::Tensor& k, double eps) {
  return gated_qk_head_layer_norm(q, k, eps, nullptr, nullptr);
}

using TensorRefPair = std::tuple<at::Tensor&, at::Tensor&>;

TensorRefPair qk_head_layer_norm_out_cuda(const at::Tensor& q, const at::Tensor& k, double eps, at::Tensor& q_out,
                                          at::Tensor& k_out) {
  check_out(q_out, q, "qk_head_layer_norm's q_out");
  check_out(k_out, k, "qk_head_layer_norm's k_out");
  const auto [q_result, k_result] = gated_qk_head_layer_norm(q, k, eps, &q_out, &k_out);
  if (!q_result.is_same(q_out)) q_out.copy_(q_result);
  if (!k_result.is_same(k_out)) k_out.copy_(k_result);
  return {q_out, k_out};
}

TensorRefPair qk_head_layer_norm_out_cpu(const at::Tensor& q, const at::Tensor& k, double eps, at::Tensor& q_out,
                                         at::Tensor& k_out) {
  check_out(q_out, q, "qk_head_layer_norm's q_out");
  check_out(k_out, k, "qk_head_layer_norm's k_out");
  const auto [q_result, k_result] = eager_qk_head_layer_norm(q, k, eps);
  q_out.copy_(q_result);
  k_out.copy_(k_result);
  return {q_out, k_out};
}

TensorRefPair qk_head_layer_norm_out_meta(const at::Tensor& q, const at::Tensor& k, double, at::Tensor& q_out,
                                          at::Tensor& k_out) {
  check_out(q_out, q, "qk_head_layer_norm's q_out");
  check_out(k_out, k, "qk_head_layer_norm's k_out");
  return {q_out, k_out};
}

TensorPair qk_head_layer_norm_meta(const at::Tensor& q, const at::Tensor& k, double) {
  return {at::empty(q.sizes(), q.options()), at::empty(k.sizes(), k.options())};
}

// ------------------------------------------------------------ gate control

Gate& gate_named(const std::string& op) {
  TORCH_CHECK(op == "layer_norm_modulate" || op == "qk_head_layer_norm",
              std::string("exactune: no op named '") + op + "' (layer_norm_modulate, qk_head_layer_norm)");
  return op == "layer_norm_modulate" ? modulate_gate() : qk_gate();
}

std::string gate_status(const std::string& op) { return describe_gate(gate_named(op)); }

bool gate_reset(const std::string& op) {
  gate_named(op).reset();
  return true;
}

// The variant the op's last fused launch on this thread ran, and the step of
// the tables' fallback chain that chose it.
std::string last_variant(const std::string& op) {
  gate_named(op);
  return op == "layer_norm_modulate" ? last_modulate_variant() : exactune_qk_head_layer_norm_last_variant();
}

// ------------------------------------------------------------ direct entries

// A tensor the registered CUDA kernel would receive as it is: on CUDA, no
// autograd to record, no tensor subclass (a Python key: FakeTensor, ...), no
// functorch transform. Any other call goes through the dispatcher, so that a
// direct call behaves as the op does in every case.
bool plain_cuda(const at::Tensor& t) {
  const c10::DispatchKeySet keys = t.key_set();
  return t.is_cuda() && !(t.requires_grad() && at::GradMode::is_enabled()) && !keys.has_any(c10::python_ks) &&
         !keys.has_any(c10::functorch_transforms_ks);
}

template <class... Tensors>
bool direct_serves(const Tensors&... tensors) {
  // A Python mode (a TorchDispatchMode, a fake mode) sees calls through the dispatcher only.
  return !c10::impl::tls_is_dispatch_key_included(c10::DispatchKey::Python) && (plain_cuda(tensors) && ...);
}

at::Tensor layer_norm_modulate_direct(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                                      double eps) {
  if (direct_serves(x, scale, shift)) return layer_norm_modulate_cuda(x, scale, shift, eps);
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("exactune::layer_norm_modulate", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, double)>();
  return op.call(x, scale, shift, eps);
}

at::Tensor layer_norm_modulate_out_direct(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                                          double eps, at::Tensor out) {
  if (direct_serves(x, scale, shift, out)) return layer_norm_modulate_out_cuda(x, scale, shift, eps, out);
  static const auto op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("exactune::layer_norm_modulate", "out")
          .typed<at::Tensor&(const at::Tensor&, const at::Tensor&, const at::Tensor&, double, at::Tensor&)>();
  return op.call(x, scale, shift, eps, out);
}

TensorPair qk_head_layer_norm_out_direct(const at::Tensor& q, const at::Tensor& k, double eps, at::Tensor q_out,
                                         at::Tensor k_out) {
  if (direct_serves(q, k, q_out, k_out)) {
    qk_head_layer_norm_out_cuda(q, k, eps, q_out, k_out);
    return {q_out, k_out};
  }
  static const auto op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("exactune::qk_head_layer_norm", "out")
          .typed<TensorRefPair(const at::Tensor&, const at::Tensor&, double, at::Tensor&, at::Tensor&)>();
  op.call(q, k, eps, q_out, k_out);
  return {q_out, k_out};
}

TensorPair qk_head_layer_norm_direct(const at::Tensor& q, const at::Tensor& k, double eps) {
  if (direct_serves(q, k)) return qk_head_layer_norm_cuda(q, k, eps);
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("exactune::qk_head_layer_norm", "")
                             .typed<TensorPair(const at::Tensor&, const at::Tensor&, double)>();
  return op.call(q, k, eps);
}

}  // namespace

// The extension module (named by torch's extension builder): the direct
// entries, each with the GIL released, as torch.ops calls are, so that a first
// sight's compile does not stall other Python threads.
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("layer_norm_modulate", &layer_norm_modulate_direct, pybind11::call_guard<pybind11::gil_scoped_release>(),
        "exactune::layer_norm_modulate without the dispatcher, for eager calls");
  m.def("qk_head_layer_norm", &qk_head_layer_norm_direct, pybind11::call_guard<pybind11::gil_scoped_release>(),
        "exactune::qk_head_layer_norm without the dispatcher, for eager calls");
  m.def("layer_norm_modulate_out", &layer_norm_modulate_out_direct,
        pybind11::call_guard<pybind11::gil_scoped_release>(), "exactune::layer_norm_modulate.out, likewise");
  m.def("qk_head_layer_norm_out", &qk_head_layer_norm_out_direct, pybind11::call_guard<pybind11::gil_scoped_release>(),
        "exactune::qk_head_layer_norm.out, likewise");
}

TORCH_LIBRARY(exactune, m) {
  m.def("layer_norm_modulate(Tensor x, Tensor scale, Tensor shift, float eps=1e-06) -> Tensor");
  m.def("qk_head_layer_norm(Tensor q, Tensor k, float eps=1e-06) -> (Tensor, Tensor)");
  m.def(
      "layer_norm_modulate.out(Tensor x, Tensor scale, Tensor shift, float eps=1e-06, *, Tensor(a!) out) -> "
      "Tensor(a!)");
  m.def(
      "qk_head_layer_norm.out(Tensor q, Tensor k, float eps=1e-06, *, Tensor(a!) q_out, Tensor(b!) k_out) -> "
      "(Tensor(a!), Tensor(b!))");
  m.def("gate_status(str op) -> str", &gate_status);
  m.def("gate_reset(str op) -> bool", &gate_reset);
  m.def("last_variant(str op) -> str", &last_variant);
}

TORCH_LIBRARY_IMPL(exactune, CUDA, m) {
  m.impl("layer_norm_modulate", &layer_norm_modulate_cuda);
  m.impl("qk_head_layer_norm", &qk_head_layer_norm_cuda);
  m.impl("layer_norm_modulate.out", &layer_norm_modulate_out_cuda);
  m.impl("qk_head_layer_norm.out", &qk_head_layer_norm_out_cuda);
}

TORCH_LIBRARY_IMPL(exactune, CPU, m) {
  m.impl("layer_norm_modulate", &eager_layer_norm_modulate);
  m.impl("qk_head_layer_norm", &eager_qk_head_layer_norm);
  m.impl("layer_norm_modulate.out", &layer_norm_modulate_out_cpu);
  m.impl("qk_head_layer_norm.out", &qk_head_layer_norm_out_cpu);
}

TORCH_LIBRARY_IMPL(exactune, Meta, m) {
  m.impl("layer_norm_modulate", &layer_norm_modulate_meta);
  m.impl("qk_head_layer_norm", &qk_head_layer_norm_meta);
  m.impl("layer_norm_modulate.out", &layer_norm_modulate_out_meta);
  m.impl("qk_head_layer_norm.out", &qk_head_layer_norm_out_meta);
}
