// The gated residual family's C ABI (exactune_gated_residual_capi.h):
// layer_norm_modulate's checks of the problem, then h and gate's row, before
// anything is compiled, loaded or copied; then the family's workload, whose
// two outputs come back as r and out.
#include <fmt/format.h>

#include <cstring>
#include <string>

#include <exactune/gpu_session.hpp>
#include <exactune/space.hpp>

#include "capi/capi_arguments.hpp"
#include "exactune_gated_residual_capi.h"
#include "gated_residual_layer_norm_modulate/gated_residual_layer_norm_modulate_family.hpp"
#include "gated_residual_layer_norm_modulate/gated_residual_layer_norm_modulate_workload.hpp"
#include "layer_norm_modulate/capi/modulate_problem_checks.hpp"

namespace {

using namespace exactune;
using namespace exactune::modulate_capi;

struct CheckedGatedProblem {
  CheckedProblem checked;
  GatedResidualInputs inputs;
};

CheckedGatedProblem check_gated_problem(const CapiArguments& arguments,
                                        const exactune_gated_residual_problem* problem) {
  arguments.require_pointer(problem, "problem");
  const exactune_gated_residual_problem& p = *problem;
  CheckedGatedProblem result{check_problem(arguments, &p.modulate), {}};
  arguments.require_pointer(p.h, "h");
  const std::int64_t last_row = p.modulate.modulation_stride - p.modulate.hidden;
  if (p.gate_offset < 0 || p.gate_offset > last_row) {
    arguments.invalid(fmt::format("gate_offset {} puts the row outside the batch element's {} elements (0..{})",
                                  p.gate_offset, p.modulate.modulation_stride, last_row));
  }
  result.inputs.modulate = inputs_of(p.modulate, result.checked);
  result.inputs.h.assign(p.h, p.h + result.checked.x_elements);
  result.inputs.gate_offset = p.gate_offset;
  return result;
}

void copy_out(const std::vector<std::uint16_t>& both, std::uint16_t* residual, std::uint16_t* out) {
  const std::size_t half = both.size() / 2;  // r, then out
  if (residual) std::memcpy(residual, both.data(), half * sizeof(std::uint16_t));
  if (out) std::memcpy(out, both.data() + half, half * sizeof(std::uint16_t));
}

}  // namespace

extern "C" {

int exactune_gated_residual_reference(const exactune_gated_residual_problem* problem, uint16_t* residual,
                                      uint16_t* out) {
  return capi_guarded([&] {
    const KernelFamily& family = gated_residual_layer_norm_modulate_family();
    const CheckedGatedProblem p =
        check_gated_problem(CapiArguments("exactune_gated_residual_reference", family), problem);
    GpuSession& s = GpuSession::instance();
    GatedResidualWorkload workload(s.backend(), s.support(family), p.checked.shape, p.inputs);
    workload.launch_reference();
    s.backend().synchronize();
    copy_out(workload.download_reference_output(), residual, out);
  });
}

int exactune_gated_residual_list_variants(int32_t hidden, char* names, size_t capacity) {
  return capi_guarded([&] {
    const CapiArguments arguments("exactune_gated_residual_list_variants", gated_residual_layer_norm_modulate_family());
    arguments.list_variants(hidden, names, capacity);
  });
}

int exactune_gated_residual_list_covering_variants(int32_t hidden, char* names, size_t capacity) {
  return capi_guarded([&] {
    const CapiArguments arguments("exactune_gated_residual_list_covering_variants",
                                  gated_residual_layer_norm_modulate_family());
    arguments.list_variants(hidden, names, capacity, CapiArguments::Listing::pairwise_cover);
  });
}

int exactune_gated_residual_run_variant(const exactune_gated_residual_problem* problem, const char* variant_name,
                                        uint16_t* residual, uint16_t* out) {
  return capi_guarded([&] {
    const KernelFamily& family = gated_residual_layer_norm_modulate_family();
    const CapiArguments arguments("exactune_gated_residual_run_variant", family);
    const CheckedGatedProblem p = check_gated_problem(arguments, problem);
    const Variant variant = arguments.require_variant(variant_name, problem->modulate.hidden);
    const int vector_bytes = LayerNormModulateConfig::from(variant).vector_bytes;
    check_alignment(arguments, problem->modulate, variant, vector_bytes);
    if (problem->gate_offset % (vector_bytes / 2) != 0) {
      arguments.not_served(
          fmt::format("gate_offset {} is not a multiple of {} elements: variant {} loads {} bytes at "
                      "a time",
                      problem->gate_offset, vector_bytes / 2, variant.name, vector_bytes));
    }
    arguments.require_pointer(residual, "residual");
    arguments.require_pointer(out, "out");
    GpuSession& s = GpuSession::instance();
    const LoadedKernel& loaded = s.variant(family, variant.name, problem->modulate.hidden, nullptr);
    GatedResidualWorkload workload(s.backend(), s.support(family), p.checked.shape, p.inputs);
    workload.poison_output();
    workload.launch_variant(loaded, variant);
    s.backend().synchronize();
    copy_out(workload.download_output(), residual, out);
  });
}

}  // extern "C"
