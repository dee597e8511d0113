// The token-major runtime entry without a GPU: the contiguous family's
// argument checks, and the layouts and alignments it does not serve, each
// decided before any GPU work (the pointers here are never dereferenced).
#include <cstdint>
#include <string>

#include "catch.hpp"
#include "layer_norm_modulate/tests/cpu/sana_runtime_args.hpp"
#include "layer_norm_modulate_token_major/runtime/exactune_layer_norm_modulate_token_major.h"

namespace {

using exactune_test::fake;

exactune_layer_norm_modulate_args sana_token_major() {
  return exactune_test::sana_runtime_args(exactune_test::XMemory::token_major);
}

int status_of(const exactune_layer_norm_modulate_args& a) { return exactune_layer_norm_modulate_token_major(&a); }
std::string last_error() { return exactune_runtime_last_error(); }

}  // namespace

TEST_CASE("token-major runtime entry: argument errors are invalid arguments", "[token_major_runtime_entry]") {
  CHECK(exactune_layer_norm_modulate_token_major(nullptr) == EXACTUNE_INVALID_ARGUMENT);
  CHECK(last_error() == "exactune_layer_norm_modulate_token_major: args is NULL");
  auto a = sana_token_major();
  a.hidden = 0;
  CHECK(status_of(a) == EXACTUNE_INVALID_ARGUMENT);
  a = sana_token_major();
  a.tokens = 0;
  CHECK(status_of(a) == EXACTUNE_OK);  // nothing to launch
}

TEST_CASE("token-major runtime entry: other layouts and misaligned rows are not served",
          "[token_major_runtime_entry]") {
  const auto not_served = [](exactune_layer_norm_modulate_args a, const std::string& reason) {
    INFO(reason);
    CHECK(status_of(a) == EXACTUNE_NOT_SERVED);
    CHECK(last_error().find(reason) != std::string::npos);
  };
  auto a = sana_token_major();
  a.x_strides[1] = 2240;  // contiguous x: the contiguous family's entry serves it
  a.x_strides[2] = 1;
  not_served(a, "are not token-major");
  a = sana_token_major();
  a.out = fake(0x300002);
  not_served(a, "out, scale or shift (or a row stride) is only 2-byte aligned");
  a = sana_token_major();
  a.hidden = 62;
  not_served(a, "hidden 62");
  a = sana_token_major();
  a.shift_row_stride = 3 * 2240;
  not_served(a, "scale and shift row strides differ");
}

TEST_CASE("token-major runtime entry: an odd x address needs no alignment", "[token_major_runtime_entry]") {
  // Only the GPU can serve it; without one the reason is the driver's, not x's alignment.
  auto a = sana_token_major();
  a.x = fake(0x100002);
  const int status = status_of(a);
  CHECK(last_error().find("aligned") == std::string::npos);
  CHECK(status != EXACTUNE_INVALID_ARGUMENT);
}
