#include "exactune_capi.h"

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "compiler.hpp"
#include "device_info.hpp"
#include "error.hpp"
#include "gpu_backend.hpp"
#include "layer_norm_modulate_family.hpp"
#include "layer_norm_modulate_workload.hpp"
#include "space.hpp"
#include "verify_stage.hpp"

namespace {

using namespace exactune;

thread_local std::string last_error;

// One GPU, its support kernels and the variants loaded so far, for the life of
// the process.
struct Session {
  std::unique_ptr<Backend> backend = open_gpu_backend(0);
  CompileCache cache{CompileCache::default_directory()};
  SupportKernels support = load_support_kernels(layer_norm_modulate_family(), *backend, cache);
  std::map<std::string, std::unique_ptr<LoadedKernel>> variants;
};

Session& session() {
  static Session s;
  return s;
}

std::mutex session_mutex;

template <class F>
int guarded(F&& body) {
  try {
    std::lock_guard lock(session_mutex);
    body();
    return 0;
  } catch (const std::exception& e) {
    last_error = e.what();
    return 1;
  }
}

Shape shape_of(const exactune_problem& p) {
  Shape s;
  s.name = "capi";
  s.model = "capi";
  s.batch = p.batch;
  s.tokens = p.tokens;
  s.hidden = p.hidden;
  s.eps = p.eps;
  s.modulation_stride = p.modulation_stride;
  return s;
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

// Callers go through every variant of a hidden size: compile them all at once,
// in parallel, on the first call for that size.
void load_hidden_size(Session& s, const std::vector<Variant>& variants, int hidden) {
  const KernelFamily& family = layer_norm_modulate_family();
  std::vector<CompileRequest> requests;
  for (const Variant& v : variants) requests.push_back(family.variant_request(v, hidden, s.backend->target()));
  const std::vector<CompileOutcome> outcomes = compile_all(requests, s.cache);
  for (std::size_t i = 0; i < variants.size(); ++i) {
    if (!outcomes[i].ok) throw error(fmt::format("{} failed to compile:\n{}", requests[i].name, outcomes[i].log));
    s.variants[fmt::format("{}@{}", variants[i].name, hidden)] = s.backend->load(outcomes[i].kernel);
  }
}

const Variant& find_variant(const std::vector<Variant>& variants, const std::string& name, int hidden) {
  for (const Variant& v : variants) {
    if (v.name == name) return v;
  }
  throw error(fmt::format("no valid variant '{}' at hidden {}", name, hidden));
}

}  // namespace

extern "C" {

const char* exactune_last_error(void) { return last_error.c_str(); }

int exactune_describe_gpu(char* text, size_t capacity) {
  return guarded([&] {
    const std::string summary = describe_gpu(0).summary();
    std::snprintf(text, capacity, "%s", summary.c_str());
  });
}

int exactune_reference(const exactune_problem* problem, uint16_t* out, uint16_t* y, float* mean, float* rstd) {
  return guarded([&] {
    Session& s = session();
    LayerNormModulateWorkload workload(*s.backend, s.support, shape_of(*problem), inputs_of(*problem));
    workload.launch_reference();
    s.backend->synchronize();
    copy_out(workload.download_reference_output(), out);
    copy_out(workload.download_layer_norm_output(), y);
    copy_out(workload.download_mean(), mean);
    copy_out(workload.download_rstd(), rstd);
  });
}

int exactune_list_variants(int32_t hidden, char* names, size_t capacity) {
  return guarded([&] {
    std::string text;
    for (const Variant& v : valid_variants(layer_norm_modulate_family(), hidden)) text += v.name + "\n";
    if (text.size() + 1 > capacity) throw error(fmt::format("exactune_list_variants needs {} bytes", text.size() + 1));
    std::memcpy(names, text.c_str(), text.size() + 1);
  });
}

int exactune_run_variant(const exactune_problem* problem, const char* variant_name, uint16_t* out) {
  return guarded([&] {
    Session& s = session();
    const KernelFamily& family = layer_norm_modulate_family();
    const std::vector<Variant> variants = valid_variants(family, problem->hidden);
    const Variant& variant = find_variant(variants, variant_name, problem->hidden);
    const std::string key = fmt::format("{}@{}", variant.name, problem->hidden);
    if (!s.variants.count(key)) load_hidden_size(s, variants, problem->hidden);
    const auto& loaded = s.variants.at(key);
    LayerNormModulateWorkload workload(*s.backend, s.support, shape_of(*problem), inputs_of(*problem));
    workload.poison_output();
    workload.launch_variant(*loaded, variant);
    s.backend->synchronize();
    copy_out(workload.download_output(), out);
  });
}

}  // extern "C"
