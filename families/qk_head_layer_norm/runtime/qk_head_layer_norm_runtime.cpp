// The qk_head_layer_norm family's runtime entry: checks that aten would run
// both tensors through its vectorized LayerNorm, states the problem as a
// ServedRequest, and launches the plan (twice for a split grid: q, then k).
#include <fmt/format.h>

#include <climits>
#include <cmath>

#include <exactune/family_server.hpp>
#include <exactune/runtime_entry.hpp>

#include "qk_head_layer_norm/qk_head_layer_norm_family.hpp"
#include "qk_head_layer_norm/runtime/exactune_qk_head_layer_norm.h"

namespace exactune {
namespace {

constexpr unsigned kSplitGrid = 1;

thread_local const LaunchPlan* last_plan = nullptr;

FamilyServer& server() {
  static FamilyServer instance(qk_head_layer_norm_family(),
                               [](const Variant& variant, int, const FamilyServer::ResidentCtas&) {
                                 return RowsLaunch([c = QkHeadLayerNormConfig::from(variant)](std::int64_t rows) {
                                   return PlannedLaunch{c.geometry(rows), c.split_grid ? kSplitGrid : 0};
                                 });
                               });
  return instance;
}

std::string not_served_because(const exactune_qk_head_layer_norm_args& a, unsigned alignment) {
  if (a.head_dim % 4 != 0 || a.head_dim > kQkMaxHeadDim) {
    return fmt::format("head_dim {} (served: a multiple of 4 up to {}; aten's vectorized LayerNorm needs % 4 == 0)",
                       a.head_dim, kQkMaxHeadDim);
  }
  const std::int64_t sizes[] = {a.batch, a.tokens, a.heads, a.head_dim};
  if (!is_contiguous(sizes, a.q_strides, 4) || !is_contiguous(sizes, a.k_strides, 4)) {
    return "q or k is not contiguous (aten's LayerNorm would copy it first)";
  }
  if (a.batch * a.tokens * a.heads > INT_MAX / 2) return fmt::format("{} rows", a.batch * a.tokens * a.heads);
  if (alignment < 8) {
    return fmt::format("q, k or an output is only {}-byte aligned; aten's vectorized LayerNorm needs 8", alignment);
  }
  return "";
}

}  // namespace
}  // namespace exactune

extern "C" {

int exactune_qk_head_layer_norm(const exactune_qk_head_layer_norm_args* args) {
  using namespace exactune;
  return runtime_entry("exactune_qk_head_layer_norm", [&] {
    if (!args) throw input_error("args is NULL");
    const exactune_qk_head_layer_norm_args& a = *args;
    if (!a.q || !a.k || !a.q_out || !a.k_out) throw input_error("q, k, q_out and k_out must not be NULL");
    if (a.batch < 0 || a.tokens < 0 || a.heads < 0 || a.head_dim < 1 || a.device < 0) {
      throw input_error(
          fmt::format("batch {}, tokens {}, heads {}, head_dim {}, device {}: sizes must be >= 0, "
                      "head_dim >= 1",
                      a.batch, a.tokens, a.heads, a.head_dim, a.device));
    }
    if (!std::isfinite(a.eps) || a.eps < 0) throw input_error(fmt::format("eps {} is not a finite value >= 0", a.eps));
    if (a.batch == 0 || a.tokens == 0 || a.heads == 0) return EXACTUNE_OK;
    const unsigned alignment = common_alignment(
        reinterpret_cast<std::uintptr_t>(a.q), reinterpret_cast<std::uintptr_t>(a.k),
        reinterpret_cast<std::uintptr_t>(a.q_out), reinterpret_cast<std::uintptr_t>(a.k_out), a.head_dim * 2);
    if (const std::string why = not_served_because(a, alignment); !why.empty()) {
      return runtime_status(EXACTUNE_NOT_SERVED, why);
    }
    const ServedRequest request{a.device, static_cast<int>(a.head_dim), a.batch * a.tokens * a.heads, alignment};
    CUstream stream = static_cast<CUstream>(a.stream);
    const ServeOutcome served = server().serve(request, stream);
    if (!served.plan) return runtime_status(EXACTUNE_NOT_SERVED, *served.why_not);
    int rows = static_cast<int>(request.rows);
    float eps = static_cast<float>(a.eps);
    const void* q = a.q;
    const void* k = a.k;
    void* q_out = a.q_out;
    void* k_out = a.k_out;
    exactune_status status;
    const LaunchGeometry& geometry = served.launch.geometry;
    if (served.launch.family_flags & kSplitGrid) {
      // The kernel serves its first tensor only: q's launch, then k's in q's slots.
      const void* none = nullptr;
      int no_rows = 0;
      void* q_params[] = {&q, &none, &q_out, &none, &rows, &no_rows, &eps};
      void* k_params[] = {&k, &none, &k_out, &none, &rows, &no_rows, &eps};
      status = launch_status(*served.plan, geometry, stream, q_params);
      if (status == EXACTUNE_OK) status = launch_status(*served.plan, geometry, stream, k_params);
    } else {
      void* params[] = {&q, &k, &q_out, &k_out, &rows, &rows, &eps};
      status = launch_status(*served.plan, geometry, stream, params);
    }
    if (status == EXACTUNE_OK) last_plan = served.plan;
    return status;
  });
}

const char* exactune_qk_head_layer_norm_last_variant(void) { return exactune::plan_text(exactune::last_plan); }

}  // extern "C"
