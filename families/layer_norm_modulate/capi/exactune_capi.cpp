// The layer_norm_modulate family's C ABI (exactune_capi.h): each entry checks
// every argument first (capi/capi_arguments.hpp), so that an unserved size, a
// count below one, a NULL pointer or an embedding of the wrong size is refused
// before anything is compiled, loaded or copied from the caller's buffers.
#include "exactune_capi.h"

#include <fmt/format.h>

#include <climits>
#include <cstring>
#include <string>

#include <exactune/error.hpp>
#include <exactune/gpu_session.hpp>
#include <exactune/space.hpp>

#include "capi/capi_arguments.hpp"
#include "layer_norm_modulate/capi/modulate_problem_checks.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate/layer_norm_modulate_workload.hpp"

namespace exactune::modulate_capi {

// Every check of exactune_problem, in the order a reader would make them: the
// struct, the served size, the counts, eps, the rows a kernel counts, the
// embedding's layout, and its size against embedding_elements.
CheckedProblem check_problem(const CapiArguments& arguments, const exactune_problem* problem) {
  arguments.require_pointer(problem, "problem");
  const exactune_problem& p = *problem;
  arguments.require_served_size(p.hidden);
  arguments.require_counts({{"batch", p.batch}, {"tokens", p.tokens}});
  arguments.require_parameter("eps", p.eps);
  arguments.require_pointer(p.x, "x");
  arguments.require_pointer(p.embedding, "embedding");
  const std::int64_t rows = arguments.require_product_at_most("batch * tokens", {p.batch, p.tokens}, INT_MAX);
  if (p.modulation_stride < p.hidden || p.modulation_stride % p.hidden != 0 ||
      p.modulation_stride / p.hidden > INT_MAX) {
    arguments.invalid(
        fmt::format("modulation_stride {} is not a whole number of rows of hidden {}", p.modulation_stride, p.hidden));
  }
  for (const auto& [name, offset] : {std::pair{"scale_offset", p.scale_offset}, {"shift_offset", p.shift_offset}}) {
    if (offset < 0 || offset > p.modulation_stride - p.hidden) {
      arguments.invalid(fmt::format("{} {} puts the row outside the batch element's {} elements (0..{})", name, offset,
                                    p.modulation_stride, p.modulation_stride - p.hidden));
    }
  }
  const std::int64_t embedding_elements =
      arguments.require_product_at_most("batch * modulation_stride", {p.batch, p.modulation_stride}, INT64_MAX / 2);
  if (p.embedding_elements != embedding_elements) {
    arguments.invalid(
        fmt::format("embedding_elements {}: the embedding is batch {} x modulation_stride {} = {} elements",
                    p.embedding_elements, p.batch, p.modulation_stride, embedding_elements));
  }
  const auto modulation_rows = static_cast<int>(p.modulation_stride / p.hidden);
  return {modulate_shape("capi", p.batch, p.tokens, p.hidden, p.eps, modulation_rows), rows * p.hidden};
}

void check_alignment(const CapiArguments& arguments, const exactune_problem& p, const Variant& variant,
                     int vector_bytes) {
  const int vector_elements = vector_bytes / 2;
  for (const auto& [name, value] : {std::pair{"scale_offset", p.scale_offset},
                                    {"shift_offset", p.shift_offset},
                                    {"modulation_stride", p.modulation_stride}}) {
    if (value % vector_elements != 0) {
      arguments.not_served(fmt::format("{} {} is not a multiple of {} elements: variant {} loads {} bytes at a time",
                                       name, value, vector_elements, variant.name, vector_elements * 2));
    }
  }
}

ModulateInputs inputs_of(const exactune_problem& p, const CheckedProblem& checked) {
  ModulateInputs in;
  in.x.assign(p.x, p.x + checked.x_elements);
  in.embedding.assign(p.embedding, p.embedding + p.embedding_elements);
  in.scale_offset = p.scale_offset;
  in.shift_offset = p.shift_offset;
  in.eps = static_cast<float>(p.eps);
  return in;
}

}  // namespace exactune::modulate_capi

namespace {

using namespace exactune;
using namespace exactune::modulate_capi;

template <class T>
void copy_out(const std::vector<T>& from, T* to) {
  if (to) std::memcpy(to, from.data(), from.size() * sizeof(T));
}

}  // namespace

extern "C" {

const char* exactune_last_error(void) { return capi_last_error(); }

int exactune_describe_gpu(char* text, size_t capacity) {
  return capi_guarded([&] {
    CapiArguments("exactune_describe_gpu", layer_norm_modulate_family()).require_pointer(text, "text");
    capi_copy_text(GpuSession::instance().describe_gpu(), text, capacity, "exactune_describe_gpu");
  });
}

int exactune_reference(const exactune_problem* problem, uint16_t* out, uint16_t* y, float* mean, float* rstd) {
  return capi_guarded([&] {
    const CheckedProblem checked =
        check_problem(CapiArguments("exactune_reference", layer_norm_modulate_family()), problem);
    const ModulateInputs inputs = inputs_of(*problem, checked);
    GpuSession& s = GpuSession::instance();
    LayerNormModulateWorkload workload(s.backend(), s.support(layer_norm_modulate_family()), checked.shape, inputs);
    workload.launch_reference();
    s.backend().synchronize();
    copy_out(workload.download_reference_output(), out);
    copy_out(workload.download_layer_norm_output(), y);
    copy_out(workload.download_mean(), mean);
    copy_out(workload.download_rstd(), rstd);
  });
}

int exactune_list_variants(int32_t hidden, char* names, size_t capacity) {
  return capi_guarded([&] {
    const CapiArguments arguments("exactune_list_variants", layer_norm_modulate_family());
    arguments.list_variants(hidden, names, capacity);
  });
}

int exactune_run_variant(const exactune_problem* problem, const char* variant_name, uint16_t* out) {
  return capi_guarded([&] {
    const KernelFamily& family = layer_norm_modulate_family();
    const CapiArguments arguments("exactune_run_variant", family);
    const CheckedProblem checked = check_problem(arguments, problem);
    const Variant variant = arguments.require_variant(variant_name, problem->hidden);
    check_alignment(arguments, *problem, variant, LayerNormModulateConfig::from(variant).vector_bytes);
    arguments.require_pointer(out, "out");
    const ModulateInputs inputs = inputs_of(*problem, checked);
    GpuSession& s = GpuSession::instance();
    const LoadedKernel& loaded = s.variant(family, variant.name, problem->hidden, nullptr);
    LayerNormModulateWorkload workload(s.backend(), s.support(family), checked.shape, inputs);
    workload.poison_output();
    workload.launch_variant(loaded, variant);
    s.backend().synchronize();
    copy_out(workload.download_output(), out);
  });
}

}  // extern "C"
