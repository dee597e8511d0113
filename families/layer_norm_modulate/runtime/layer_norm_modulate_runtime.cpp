// The layer_norm_modulate family's runtime entry: checks that the problem is
// one aten runs through its vectorized LayerNorm (the only path whose bits the
// variants reproduce), states it as a ServedRequest, and launches the plan.
#include <exactune/family_server.hpp>
#include <exactune/runtime_entry.hpp>

#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate/runtime/exactune_layer_norm_modulate.h"
#include "layer_norm_modulate/runtime/modulate_runtime_checks.hpp"

namespace exactune {
namespace {

thread_local const LaunchPlan* last_plan = nullptr;

FamilyServer& server() {
  static FamilyServer instance(
      layer_norm_modulate_family(), [](const Variant& variant, int, const FamilyServer::ResidentCtas& resident_ctas) {
        return RowsLaunch([config = LayerNormModulateConfig::from(variant), resident_ctas](std::int64_t rows) {
          return PlannedLaunch{config.geometry(rows, resident_ctas), 0};
        });
      });
  return instance;
}

}  // namespace
}  // namespace exactune

extern "C" {

int exactune_layer_norm_modulate(const exactune_layer_norm_modulate_args* args) {
  using namespace exactune;
  return runtime_entry("exactune_layer_norm_modulate", [&] {
    const exactune_layer_norm_modulate_args& a = modulate_runtime::checked(args);
    if (a.batch == 0 || a.tokens == 0) return EXACTUNE_OK;
    const std::int64_t row_stride = modulate_runtime::row_stride(a);
    const unsigned alignment = modulate_runtime::alignment(a);
    if (const std::string why =
            modulate_runtime::not_served_because(a, alignment, modulate_runtime::XLayout::contiguous);
        !why.empty()) {
      return runtime_status(EXACTUNE_NOT_SERVED, why);
    }
    const ServedRequest request{a.device, static_cast<int>(a.hidden), a.batch * a.tokens, alignment};
    CUstream stream = static_cast<CUstream>(a.stream);
    const ServeOutcome served = server().serve(request, stream);
    if (!served.plan) return runtime_status(EXACTUNE_NOT_SERVED, *served.why_not);
    int rows = static_cast<int>(request.rows);
    int tokens = static_cast<int>(a.tokens);
    long long stride = row_stride;
    float eps = static_cast<float>(a.eps);
    const void* x = a.x;
    const void* scale = a.scale;
    const void* shift = a.shift;
    void* out = a.out;
    void* params[] = {&x, &scale, &shift, &out, &rows, &tokens, &stride, &eps};
    const exactune_status status = launch_status(*served.plan, served.launch.geometry, stream, params);
    if (status == EXACTUNE_OK) last_plan = served.plan;
    return status;
  });
}

const char* exactune_layer_norm_modulate_last_variant(void) { return exactune::plan_text(exactune::last_plan); }

}  // extern "C"
