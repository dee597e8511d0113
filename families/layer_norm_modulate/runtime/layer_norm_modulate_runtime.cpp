// The layer_norm_modulate family's runtime entry: checks that the problem is
// one aten runs through its vectorized LayerNorm (the only path whose bits the
// variants reproduce), states it as a ServedRequest, and launches the plan.
#include "layer_norm_modulate/runtime/exactune_layer_norm_modulate.h"

#include <fmt/format.h>

#include <climits>
#include <cmath>

#include <exactune/family_server.hpp>
#include <exactune/runtime_entry.hpp>
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"

namespace exactune {
namespace {

constexpr int kMaxHidden = 8192;  // the largest size the tables are tuned and proven for

thread_local const LaunchPlan* last_plan = nullptr;

FamilyServer& server() {
  static FamilyServer instance(
      layer_norm_modulate_family(),
      [](const Variant& variant, const ServedRequest& request, const FamilyServer::ResidentCtas& resident_ctas) {
        return PlannedLaunch{LayerNormModulateConfig::from(variant).geometry(request.rows, resident_ctas), 0};
      });
  return instance;
}

// Why aten would not run this problem through the kernel the variants
// reproduce, or why no variant can; "" when it is served.
std::string not_served_because(const exactune_layer_norm_modulate_args& a, unsigned alignment) {
  if (a.hidden % 4 != 0 || a.hidden > kMaxHidden) {
    return fmt::format("hidden {} (served: a multiple of 4 up to {}; aten's vectorized LayerNorm needs hidden % 4 == 0)",
                       a.hidden, kMaxHidden);
  }
  const std::int64_t sizes[] = {a.batch, a.tokens, a.hidden};
  if (!is_contiguous(sizes, a.x_strides, 3)) {
    return fmt::format("x strides ({}, {}, {}) are not contiguous (aten's LayerNorm would copy x first)",
                       a.x_strides[0], a.x_strides[1], a.x_strides[2]);
  }
  if (a.batch > 1 && a.scale_row_stride != a.shift_row_stride) {
    return fmt::format("scale and shift row strides differ ({} and {}); the kernel takes one", a.scale_row_stride,
                       a.shift_row_stride);
  }
  if (a.batch * a.tokens > INT_MAX || a.scale_row_stride < 0) {
    return fmt::format("{} rows or a negative row stride", a.batch * a.tokens);
  }
  if (alignment < 8) {
    return fmt::format("x, out, scale or shift (or a row stride) is only {}-byte aligned; aten's vectorized LayerNorm "
                       "needs 8",
                       alignment);
  }
  return "";
}

}  // namespace
}  // namespace exactune

extern "C" {

int exactune_layer_norm_modulate(const exactune_layer_norm_modulate_args* args) {
  using namespace exactune;
  return runtime_entry("exactune_layer_norm_modulate", [&] {
    if (!args) throw input_error("args is NULL");
    const exactune_layer_norm_modulate_args& a = *args;
    if (!a.x || !a.scale || !a.shift || !a.out) throw input_error("x, scale, shift and out must not be NULL");
    if (a.batch < 0 || a.tokens < 0 || a.hidden < 1 || a.device < 0) {
      throw input_error(fmt::format("batch {}, tokens {}, hidden {}, device {}: sizes must be >= 0, hidden >= 1",
                                    a.batch, a.tokens, a.hidden, a.device));
    }
    if (!std::isfinite(a.eps) || a.eps < 0) throw input_error(fmt::format("eps {} is not a finite value >= 0", a.eps));
    if (a.batch == 0 || a.tokens == 0) return EXACTUNE_OK;
    const std::int64_t row_stride = a.batch > 1 ? a.scale_row_stride : 0;
    const unsigned alignment =
        common_alignment(reinterpret_cast<std::uintptr_t>(a.x), reinterpret_cast<std::uintptr_t>(a.out),
                         reinterpret_cast<std::uintptr_t>(a.scale), reinterpret_cast<std::uintptr_t>(a.shift),
                         a.hidden * 2, row_stride * 2);
    if (const std::string why = not_served_because(a, alignment); !why.empty()) {
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
    const exactune_status status = launch_status(*served.plan, stream, params);
    if (status == EXACTUNE_OK) last_plan = served.plan;
    return status;
  });
}

const char* exactune_layer_norm_modulate_last_variant(void) { return exactune::plan_text(exactune::last_plan); }

}  // extern "C"
