// What the torch-free binding's ops share (op_gate.hpp).
#include "op_gate.hpp"

#include <algorithm>

namespace exactune::torch_ops {

Span span_of(const TensorLayout& t) {
  const auto first = reinterpret_cast<std::uintptr_t>(t.data);
  std::int64_t last_element = 0;
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] == 0) return {first, first};
    last_element += (t.shape[d] - 1) * std::max<std::int64_t>(t.strides[d], 0);
  }
  return {first, first + static_cast<std::uintptr_t>(last_element + 1) * 2};  // bf16
}

bool overlap(const Span& a, const Span& b) { return a.first < b.last && b.first < a.last; }

std::optional<TensorLayout> writable_output(PyObject* out, const TensorLayout& like,
                                            std::initializer_list<const TensorLayout*> inputs) {
  const Framework& framework = Framework::get();
  if (!framework.plain(out)) return std::nullopt;
  const std::optional<TensorLayout> layout = framework.layout(out);
  if (!layout || !layout->bf16 || layout->device != like.device || layout->ndim != like.ndim || !layout->contiguous()) {
    return std::nullopt;
  }
  for (int d = 0; d < like.ndim; ++d) {
    if (layout->shape[d] != like.shape[d]) return std::nullopt;
  }
  const Span written = span_of(*layout);
  for (const TensorLayout* input : inputs) {
    if (overlap(written, span_of(*input))) return std::nullopt;
  }
  return layout;
}

}  // namespace exactune::torch_ops
