// The token-major family's C ABI (exactune_token_major_capi.h): the contiguous
// family's checks of the problem, then the token-major workload, which takes x
// as logical values: the caller's (B, C, N) memory is transposed back first.
#include <cstring>
#include <string>

#include <exactune/gpu_session.hpp>
#include <exactune/space.hpp>

#include "capi/capi_arguments.hpp"
#include "exactune_token_major_capi.h"
#include "layer_norm_modulate/capi/modulate_problem_checks.hpp"
#include "layer_norm_modulate_token_major/layer_norm_modulate_token_major_family.hpp"
#include "layer_norm_modulate_token_major/layer_norm_modulate_token_major_workload.hpp"

namespace {

using namespace exactune;
using namespace exactune::modulate_capi;

ModulateInputs token_major_inputs(const exactune_problem& p, const CheckedProblem& checked) {
  ModulateInputs in = inputs_of(p, checked);
  in.x = transpose_batches(in.x, p.batch, p.hidden, p.tokens);
  return in;
}

void copy_out(const std::vector<std::uint16_t>& from, std::uint16_t* to) {
  std::memcpy(to, from.data(), from.size() * sizeof(std::uint16_t));
}

}  // namespace

extern "C" {

int exactune_token_major_list_variants(int32_t hidden, char* names, size_t capacity) {
  return capi_guarded([&] {
    const CapiArguments arguments("exactune_token_major_list_variants", layer_norm_modulate_token_major_family());
    arguments.list_variants(hidden, names, capacity);
  });
}

int exactune_token_major_list_covering_variants(int32_t hidden, char* names, size_t capacity) {
  return capi_guarded([&] {
    const CapiArguments arguments("exactune_token_major_list_covering_variants",
                                  layer_norm_modulate_token_major_family());
    arguments.list_variants(hidden, names, capacity, CapiArguments::Listing::pairwise_cover);
  });
}

int exactune_token_major_reference(const exactune_problem* problem, uint16_t* out) {
  return capi_guarded([&] {
    const KernelFamily& family = layer_norm_modulate_token_major_family();
    const CapiArguments arguments("exactune_token_major_reference", family);
    const CheckedProblem checked = check_problem(arguments, problem);
    arguments.require_pointer(out, "out");
    GpuSession& s = GpuSession::instance();
    TokenMajorWorkload workload(s.backend(), s.support(family), checked.shape, token_major_inputs(*problem, checked));
    workload.launch_reference();
    s.backend().synchronize();
    copy_out(workload.download_reference_output(), out);
  });
}

int exactune_token_major_run_variant(const exactune_problem* problem, const char* variant_name, uint16_t* out) {
  return capi_guarded([&] {
    const KernelFamily& family = layer_norm_modulate_token_major_family();
    const CapiArguments arguments("exactune_token_major_run_variant", family);
    const CheckedProblem checked = check_problem(arguments, problem);
    const Variant variant = arguments.require_variant(variant_name, problem->hidden);
    check_alignment(arguments, *problem, variant, TokenMajorConfig::from(variant).vector_bytes);
    arguments.require_pointer(out, "out");
    GpuSession& s = GpuSession::instance();
    const LoadedKernel& loaded = s.variant(family, variant.name, problem->hidden, nullptr);
    TokenMajorWorkload workload(s.backend(), s.support(family), checked.shape, token_major_inputs(*problem, checked));
    workload.poison_output();
    workload.launch_variant(loaded, variant);
    s.backend().synchronize();
    copy_out(workload.download_output(), out);
  });
}

}  // extern "C"
