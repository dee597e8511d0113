// The qk_head_layer_norm family's C ABI (exactune_qk_capi.h): each entry checks
// every argument first (capi/capi_arguments.hpp), so that an unserved head_dim,
// a count below one or a NULL pointer is refused before anything is compiled,
// loaded or copied from the caller's buffers.
#include <climits>
#include <cstring>
#include <string>

#include <exactune/error.hpp>
#include <exactune/gpu_session.hpp>
#include <exactune/space.hpp>

#include "capi/capi_arguments.hpp"
#include "exactune_qk_capi.h"
#include "qk_head_layer_norm/qk_head_layer_norm_family.hpp"
#include "qk_head_layer_norm/qk_head_layer_norm_inputs.hpp"
#include "qk_head_layer_norm/qk_head_layer_norm_workload.hpp"

namespace {

using namespace exactune;

// Refuses what aten would not run this way (head_dim), what describes no
// problem, and more rows than the family serves, before anything is read.
Shape checked_shape(const CapiArguments& arguments, const exactune_qk_problem* problem) {
  arguments.require_pointer(problem, "problem");
  const exactune_qk_problem& p = *problem;
  arguments.require_served_size(p.head_dim);
  arguments.require_counts({{"batch", p.batch}, {"tokens", p.tokens}, {"heads", p.heads}});
  arguments.require_parameter("eps", p.eps);
  arguments.require_pointer(p.q, "q");
  arguments.require_pointer(p.k, "k");
  arguments.require_product_at_most("batch * tokens * heads", {p.batch, p.tokens, p.heads}, INT_MAX);
  try {
    return qk_head_shape("capi", p.batch, p.tokens, p.heads, p.head_dim, p.eps);
  } catch (const input_error& e) {  // the family's own limit on rows
    arguments.not_served(e.what());
  }
}

QkInputs inputs_of(const exactune_qk_problem& p, const Shape& shape) {
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
    const Shape shape = checked_shape(CapiArguments("exactune_qk_reference", qk_head_layer_norm_family()), problem);
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
    const CapiArguments arguments("exactune_qk_list_variants", qk_head_layer_norm_family());
    arguments.list_variants(head_dim, names, capacity);
  });
}

int exactune_qk_run_variant(const exactune_qk_problem* problem, const char* variant_name, uint16_t* q_out,
                            uint16_t* k_out) {
  return capi_guarded([&] {
    const KernelFamily& family = qk_head_layer_norm_family();
    const CapiArguments arguments("exactune_qk_run_variant", family);
    const Shape shape = checked_shape(arguments, problem);
    const Variant variant = arguments.require_variant(variant_name, problem->head_dim);
    arguments.require_pointer(q_out, "q_out");
    arguments.require_pointer(k_out, "k_out");
    const QkInputs inputs = inputs_of(*problem, shape);
    GpuSession& s = GpuSession::instance();
    const LoadedKernel& loaded = s.variant(family, variant.name, problem->head_dim, nullptr);
    QkHeadLayerNormWorkload workload(s.backend(), s.support(family), shape, inputs);
    workload.poison_output();
    workload.launch_variant(loaded, variant);
    s.backend().synchronize();
    copy_out(workload.download_output(), q_out, k_out);
  });
}

}  // extern "C"
