#include "exactune_capi.h"

#include <fmt/format.h>

#include <cstring>
#include <exactune/error.hpp>
#include <exactune/gpu_session.hpp>
#include <exactune/space.hpp>
#include <string>

#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate/layer_norm_modulate_workload.hpp"

namespace {

using namespace exactune;

Shape shape_of(const exactune_problem& p) {
  if (p.hidden <= 0 || p.modulation_stride % p.hidden != 0) {
    throw error(fmt::format("exactune_problem: modulation_stride {} is not a whole number of rows of hidden {}",
                            p.modulation_stride, p.hidden));
  }
  return modulate_shape("capi", p.batch, p.tokens, p.hidden, p.eps,
                        static_cast<int>(p.modulation_stride / p.hidden));
}

ModulateInputs inputs_of(const exactune_problem& p) {
  if (!p.x || !p.embedding) throw error("exactune_problem: x and embedding must be given");
  if (p.batch <= 0 || p.tokens <= 0) throw error("exactune_problem: batch and tokens must be positive");
  const auto elements = static_cast<std::size_t>(p.batch) * p.tokens * p.hidden;
  ModulateInputs in;
  in.x.assign(p.x, p.x + elements);
  in.embedding.assign(p.embedding, p.embedding + p.embedding_elements);
  in.scale_offset = p.scale_offset;
  in.shift_offset = p.shift_offset;
  in.eps = static_cast<float>(p.eps);
  return in;
}

template <class T>
void copy_out(const std::vector<T>& from, T* to) {
  if (to) std::memcpy(to, from.data(), from.size() * sizeof(T));
}

}  // namespace

extern "C" {

const char* exactune_last_error(void) { return capi_last_error(); }

int exactune_describe_gpu(char* text, size_t capacity) {
  return capi_guarded([&] { capi_copy_text(GpuSession::instance().describe_gpu(), text, capacity, "exactune_describe_gpu"); });
}

int exactune_reference(const exactune_problem* problem, uint16_t* out, uint16_t* y, float* mean, float* rstd) {
  return capi_guarded([&] {
    GpuSession& s = GpuSession::instance();
    LayerNormModulateWorkload workload(s.backend(), s.support(layer_norm_modulate_family()), shape_of(*problem),
                                       inputs_of(*problem));
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
    std::string text;
    for (const Variant& v : valid_variants(layer_norm_modulate_family(), hidden)) text += v.name + "\n";
    capi_copy_text(text, names, capacity, "exactune_list_variants");
  });
}

int exactune_run_variant(const exactune_problem* problem, const char* variant_name, uint16_t* out) {
  return capi_guarded([&] {
    GpuSession& s = GpuSession::instance();
    const KernelFamily& family = layer_norm_modulate_family();
    Variant variant;
    const LoadedKernel& loaded = s.variant(family, variant_name, problem->hidden, &variant);
    LayerNormModulateWorkload workload(s.backend(), s.support(family), shape_of(*problem), inputs_of(*problem));
    workload.poison_output();
    workload.launch_variant(loaded, variant);
    s.backend().synchronize();
    copy_out(workload.download_output(), out);
  });
}

}  // extern "C"
