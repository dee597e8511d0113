// The gated residual family's runtime entry without a GPU: argument errors are
// EXACTUNE_INVALID_ARGUMENT; problems the variants do not reproduce (those of
// layer_norm_modulate, a gate row stride of its own, a residual over an input,
// a misaligned h) are EXACTUNE_NOT_SERVED with the reason, decided before any
// GPU work (the pointers here are never dereferenced); a served problem
// reaches the GPU, which these suites do not have.
#include <string>

#include "backends/gpu/cuda_driver.hpp"
#include "catch.hpp"
#include "gated_residual_layer_norm_modulate/runtime/exactune_gated_residual_layer_norm_modulate.h"
#include "layer_norm_modulate/tests/cpu/sana_runtime_args.hpp"

namespace {

using exactune_test::fake;

// Sana's problem with h beside x, gate the third row of the embedding and the residual apart.
exactune_gated_residual_layer_norm_modulate_args sana() {
  exactune_gated_residual_layer_norm_modulate_args a{};
  a.modulate = exactune_test::sana_runtime_args(exactune_test::XMemory::contiguous);
  a.h = fake(0x1000000);
  a.gate = fake(0x200000 + 2 * 2 * 2240);
  a.gate_row_stride = a.modulate.scale_row_stride;
  a.residual = fake(0x2000000);
  return a;
}

int status_of(const exactune_gated_residual_layer_norm_modulate_args& a) {
  return exactune_gated_residual_layer_norm_modulate(&a);
}
std::string last_error() { return exactune_runtime_last_error(); }

void not_served(const exactune_gated_residual_layer_norm_modulate_args& a, const std::string& reason) {
  INFO(reason);
  CHECK(status_of(a) == EXACTUNE_NOT_SERVED);
  CHECK(last_error().find(reason) != std::string::npos);
}

}  // namespace

TEST_CASE("gated runtime entry: argument errors are invalid arguments, with the reason", "[runtime_entry]") {
  CHECK(exactune_gated_residual_layer_norm_modulate(nullptr) == EXACTUNE_INVALID_ARGUMENT);
  CHECK(last_error() == "exactune_gated_residual_layer_norm_modulate: args is NULL");
  auto a = sana();
  a.h = nullptr;
  CHECK(status_of(a) == EXACTUNE_INVALID_ARGUMENT);
  CHECK(last_error().find("h, gate and residual must not be NULL") != std::string::npos);
  a = sana();
  a.modulate.out = nullptr;
  CHECK(status_of(a) == EXACTUNE_INVALID_ARGUMENT);
}

TEST_CASE("gated runtime entry: problems the variants do not reproduce are not served", "[runtime_entry]") {
  auto a = sana();
  a.modulate.hidden = a.modulate.x_strides[1] = 62;
  a.modulate.x_strides[0] = 1024 * 62;
  not_served(a, "hidden 62");
  a = sana();
  a.gate_row_stride = 3 * 2240;
  not_served(a, "gate's row stride 6720 is not scale and shift's 13440");
  a = sana();
  a.residual = const_cast<void*>(a.modulate.x);  // in place over x
  not_served(a, "residual overlaps x, h or out");
  a = sana();
  a.h = fake(0x1000004);  // 4-byte aligned
  not_served(a, "only 4-byte aligned");
}

TEST_CASE("gated runtime entry: an empty problem succeeds, a served one needs the GPU", "[runtime_entry]") {
  auto a = sana();
  a.modulate.tokens = 0;
  CHECK(status_of(a) == EXACTUNE_OK);
  INFO("the CPU suites run with CUDA_VISIBLE_DEVICES empty (tests/CMakeLists.txt): no GPU is visible to them");
  REQUIRE(exactune::why_no_gpu().has_value());
  CHECK(status_of(sana()) == EXACTUNE_ERROR);
  CHECK(last_error().find(*exactune::why_no_gpu()) != std::string::npos);
}
