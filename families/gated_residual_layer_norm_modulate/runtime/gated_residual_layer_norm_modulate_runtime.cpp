// The gated residual family's runtime entry: layer_norm_modulate's checks on
// the problem after the residual, then h, gate and residual's own (present,
// one row stride with scale and shift, no overlap, alignment), stated as a
// ServedRequest; the plan is launched with both outputs.
#include <fmt/format.h>

#include <cstdint>

#include <exactune/error.hpp>
#include <exactune/family_server.hpp>
#include <exactune/runtime_entry.hpp>

#include "gated_residual_layer_norm_modulate/gated_residual_layer_norm_modulate_family.hpp"
#include "gated_residual_layer_norm_modulate/runtime/exactune_gated_residual_layer_norm_modulate.h"
#include "layer_norm_modulate/runtime/modulate_runtime_checks.hpp"

namespace exactune {
namespace {

thread_local const LaunchPlan* last_plan = nullptr;

FamilyServer& server() {
  static FamilyServer instance(gated_residual_layer_norm_modulate_family(),
                               [](const Variant& variant, int, const FamilyServer::ResidentCtas& resident_ctas) {
                                 return RowsLaunch([config = gated_residual_axis_table().decode(variant.params),
                                                    resident_ctas](std::int64_t rows) {
                                   return PlannedLaunch{config.geometry(rows, resident_ctas), 0};
                                 });
                               });
  return instance;
}

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

// Whether [a, a + bytes) and [b, b + bytes) share a byte.
bool overlap(const void* a, const void* b, std::int64_t bytes) {
  return address(a) < address(b) + static_cast<std::uintptr_t>(bytes) &&
         address(b) < address(a) + static_cast<std::uintptr_t>(bytes);
}

const exactune_gated_residual_layer_norm_modulate_args& checked(
    const exactune_gated_residual_layer_norm_modulate_args* args) {
  if (!args) throw input_error("args is NULL");
  modulate_runtime::checked(&args->modulate);
  if (!args->h || !args->gate || !args->residual) throw input_error("h, gate and residual must not be NULL");
  return *args;
}

std::string not_served_because(const exactune_gated_residual_layer_norm_modulate_args& a, unsigned alignment) {
  const exactune_layer_norm_modulate_args& m = a.modulate;
  if (std::string why = modulate_runtime::not_served_because(m, alignment, modulate_runtime::XLayout::contiguous);
      !why.empty()) {
    return why;
  }
  if (m.batch > 1 && a.gate_row_stride != m.scale_row_stride) {
    return fmt::format("gate's row stride {} is not scale and shift's {}; the kernel takes one", a.gate_row_stride,
                       m.scale_row_stride);
  }
  const std::int64_t bytes = m.batch * m.tokens * m.hidden * 2;
  if (overlap(a.residual, m.x, bytes) || overlap(a.residual, a.h, bytes) || overlap(a.residual, m.out, bytes)) {
    return "residual overlaps x, h or out (no variant is verified writing the rows it reads)";
  }
  return "";
}

}  // namespace
}  // namespace exactune

extern "C" {

int exactune_gated_residual_layer_norm_modulate(const exactune_gated_residual_layer_norm_modulate_args* args) {
  using namespace exactune;
  return runtime_entry("exactune_gated_residual_layer_norm_modulate", [&] {
    const exactune_gated_residual_layer_norm_modulate_args& a = checked(args);
    const exactune_layer_norm_modulate_args& m = a.modulate;
    if (m.batch == 0 || m.tokens == 0) return EXACTUNE_OK;
    const std::int64_t row_stride = modulate_runtime::row_stride(m);
    const unsigned alignment =
        std::min(modulate_runtime::alignment(m),
                 common_alignment(address(a.h), address(a.residual), address(a.gate), m.hidden * 2, row_stride * 2));
    if (const std::string why = not_served_because(a, alignment); !why.empty()) {
      return runtime_status(EXACTUNE_NOT_SERVED, why);
    }
    const ServedRequest request{m.device, static_cast<int>(m.hidden), m.batch * m.tokens, alignment};
    CUstream stream = static_cast<CUstream>(m.stream);
    const ServeOutcome served = server().serve(request, stream);
    if (!served.plan) return runtime_status(EXACTUNE_NOT_SERVED, *served.why_not);
    int rows = static_cast<int>(request.rows);
    int tokens = static_cast<int>(m.tokens);
    long long stride = row_stride;
    float eps = static_cast<float>(m.eps);
    const void* x = m.x;
    const void* h = a.h;
    const void* gate = a.gate;
    const void* scale = m.scale;
    const void* shift = m.shift;
    void* residual = a.residual;
    void* out = m.out;
    void* params[] = {&x, &h, &gate, &scale, &shift, &residual, &out, &rows, &tokens, &stride, &eps};
    const exactune_status status = launch_status(*served.plan, served.launch.geometry, stream, params);
    if (status == EXACTUNE_OK) last_plan = served.plan;
    return status;
  });
}

const char* exactune_gated_residual_layer_norm_modulate_last_variant(void) {
  return exactune::plan_text(exactune::last_plan);
}

}  // extern "C"
