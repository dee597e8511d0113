#include "exactune_qk_capi.h"

#include <cstring>
#include <exactune/error.hpp>
#include <exactune/gpu_session.hpp>
#include <exactune/space.hpp>
#include <string>

#include "qk_head_layer_norm/qk_head_layer_norm_family.hpp"
#include "qk_head_layer_norm/qk_head_layer_norm_inputs.hpp"
#include "qk_head_layer_norm/qk_head_layer_norm_workload.hpp"

namespace {

using namespace exactune;

// Refuses what aten would not run this way (head_dim) before anything is read.
Shape shape_of(const exactune_qk_problem& p) {
  const KernelFamily& family = qk_head_layer_norm_family();
  if (p.batch <= 0 || p.tokens <= 0 || p.heads <= 0) {
    throw input_error("exactune_qk_problem: batch, tokens and heads must be positive");
  }
  for (const auto& [name, value] : {std::pair<const char*, double>{"head_dim", p.head_dim}, {"eps", p.eps}}) {
    const std::string problem = family.parameter_problem(name, value);
    if (!problem.empty()) throw input_error("exactune_qk_problem: " + problem);
  }
  return qk_head_shape("capi", p.batch, p.tokens, p.heads, p.head_dim, p.eps);
}

QkInputs inputs_of(const exactune_qk_problem& p, const Shape& shape) {
  if (!p.q || !p.k) throw input_error("exactune_qk_problem: q and k must be given");
  const auto elements = static_cast<std::size_t>(shape.rows()) * static_cast<std::size_t>(p.head_dim);
  QkInputs in;
  in.q.assign(p.q, p.q + elements);
  in.k.assign(p.k, p.k + elements);
  in.eps = static_cast<float>(p.eps);
  return in;
}

// The workload's outputs are q's part then k's: split them into the caller's buffers.
template <class T>
void copy_out(const std::vector<T>& both, T* first, T* second) {
  const std::size_t half = both.size() / 2;
  if (first) std::memcpy(first, both.data(), half * sizeof(T));
  if (second) std::memcpy(second, both.data() + half, half * sizeof(T));
}

}  // namespace

extern "C" {

const char* exactune_qk_last_error(void) { return capi_last_error(); }

int exactune_qk_reference(const exactune_qk_problem* problem, uint16_t* q_out, uint16_t* k_out, float* q_mean,
                          float* q_rstd, float* k_mean, float* k_rstd) {
  return capi_guarded([&] {
    const Shape shape = shape_of(*problem);
    const QkInputs inputs = inputs_of(*problem, shape);
    GpuSession& s = GpuSession::instance();
    QkHeadLayerNormWorkload workload(s.backend(), s.support(qk_head_layer_norm_family()), shape, inputs);
    workload.launch_reference();
    s.backend().synchronize();
    copy_out(workload.download_reference_output(), q_out, k_out);
    copy_out(workload.download_mean(), q_mean, k_mean);
    copy_out(workload.download_rstd(), q_rstd, k_rstd);
  });
}

int exactune_qk_list_variants(int32_t head_dim, char* names, size_t capacity) {
  return capi_guarded([&] {
    const std::string problem = qk_head_layer_norm_family().parameter_problem("head_dim", head_dim);
    if (!problem.empty()) throw input_error(problem);
    std::string text;
    for (const Variant& v : valid_variants(qk_head_layer_norm_family(), head_dim)) text += v.name + "\n";
    capi_copy_text(text, names, capacity, "exactune_qk_list_variants");
  });
}

int exactune_qk_run_variant(const exactune_qk_problem* problem, const char* variant_name, uint16_t* q_out,
                            uint16_t* k_out) {
  return capi_guarded([&] {
    const Shape shape = shape_of(*problem);
    const QkInputs inputs = inputs_of(*problem, shape);
    GpuSession& s = GpuSession::instance();
    const KernelFamily& family = qk_head_layer_norm_family();
    Variant variant;
    const LoadedKernel& loaded = s.variant(family, variant_name, problem->head_dim, &variant);
    QkHeadLayerNormWorkload workload(s.backend(), s.support(family), shape, inputs);
    workload.poison_output();
    workload.launch_variant(loaded, variant);
    s.backend().synchronize();
    copy_out(workload.download_output(), q_out, k_out);
  });
}

}  // extern "C"
