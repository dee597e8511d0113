// The token-major family's runtime entry: the contiguous family's checks with
// a token-major x, then the tables' in-place variant (tile or lanes), launched
// with a grid of one CTA per cta_tokens() tokens of each batch element.
#include <fmt/format.h>

#include <exactune/family_server.hpp>
#include <exactune/runtime_entry.hpp>

#include "layer_norm_modulate/runtime/modulate_runtime_checks.hpp"
#include "layer_norm_modulate_token_major/layer_norm_modulate_token_major_family.hpp"
#include "layer_norm_modulate_token_major/runtime/exactune_layer_norm_modulate_token_major.h"

namespace exactune {
namespace {

thread_local const LaunchPlan* last_plan = nullptr;

// A plan's grid is computed per call from batch and tokens (rows alone do not
// tell it); its block and shared memory come from the variant, and its
// family_flags hold a CTA's tokens (0: a copy variant).
FamilyServer& server() {
  static FamilyServer instance(layer_norm_modulate_token_major_family(), [](const Variant& variant, int size,
                                                                            const FamilyServer::ResidentCtas&) {
    const TokenMajorConfig c = TokenMajorConfig::from(variant);
    const PlannedLaunch launch = c.in_place()
                                     ? PlannedLaunch{c.tile_geometry(1, 1, size), static_cast<unsigned>(c.cta_tokens())}
                                     : PlannedLaunch{};
    return RowsLaunch([launch](std::int64_t) { return launch; });
  });
  return instance;
}

}  // namespace
}  // namespace exactune

extern "C" {

int exactune_layer_norm_modulate_token_major(const exactune_layer_norm_modulate_args* args) {
  using namespace exactune;
  return runtime_entry("exactune_layer_norm_modulate_token_major", [&] {
    const exactune_layer_norm_modulate_args& a = modulate_runtime::checked(args);
    if (a.batch == 0 || a.tokens == 0) return EXACTUNE_OK;
    const auto layout = modulate_runtime::XLayout::token_major;
    const unsigned alignment = modulate_runtime::alignment(a, layout);
    if (const std::string why = modulate_runtime::not_served_because(a, alignment, layout); !why.empty()) {
      return runtime_status(EXACTUNE_NOT_SERVED, why);
    }
    const ServedRequest request{a.device, static_cast<int>(a.hidden), a.batch * a.tokens, alignment};
    CUstream stream = static_cast<CUstream>(a.stream);
    const ServeOutcome served = server().serve(request, stream);
    if (!served.plan) return runtime_status(EXACTUNE_NOT_SERVED, *served.why_not);
    const unsigned cta_tokens = served.launch.family_flags;
    if (cta_tokens == 0) {
      return runtime_status(EXACTUNE_NOT_SERVED,
                            fmt::format("the tables chose {} ({}): a transpose copy of x, then a contiguous kernel, "
                                        "which the runtime does not run (it holds no scratch buffer); the framework's "
                                        "chain copies x too",
                                        served.plan->variant, served.plan->step));
    }
    LaunchGeometry geometry = served.launch.geometry;
    geometry.grid = Dim3{token_tile_ctas(a.batch, a.tokens, static_cast<int>(cta_tokens)), 1, 1};
    int tokens = static_cast<int>(a.tokens);
    long long stride = modulate_runtime::row_stride(a);
    float eps = static_cast<float>(a.eps);
    const void* x = a.x;
    const void* scale = a.scale;
    const void* shift = a.shift;
    void* out = a.out;
    void* params[] = {&x, &scale, &shift, &out, &tokens, &stride, &eps};
    const exactune_status status = launch_status(*served.plan, geometry, stream, params);
    if (status == EXACTUNE_OK) last_plan = served.plan;
    return status;
  });
}

const char* exactune_layer_norm_modulate_token_major_last_variant(void) {
  return exactune::plan_text(exactune::last_plan);
}

}  // extern "C"
