// The runtime's C entry for this family without a GPU: argument errors and the
// problems aten would run through another kernel are refused before any GPU
// work (the pointers here are never dereferenced).
#include <cstdint>
#include <string>

#include "catch.hpp"
#include "qk_head_layer_norm/runtime/exactune_qk_head_layer_norm.h"

namespace {

// GLM-Image's joint q/k on made-up, 16-byte aligned addresses.
exactune_qk_head_layer_norm_args glm() {
  exactune_qk_head_layer_norm_args a{};
  a.q = reinterpret_cast<void*>(0x100000);
  a.k = reinterpret_cast<void*>(0x200000);
  a.q_out = reinterpret_cast<void*>(0x300000);
  a.k_out = reinterpret_cast<void*>(0x400000);
  a.batch = 1;
  a.tokens = 4096;
  a.heads = 32;
  a.head_dim = 128;
  const std::int64_t strides[] = {4096 * 32 * 128, 32 * 128, 128, 1};
  for (int d = 0; d < 4; ++d) a.q_strides[d] = a.k_strides[d] = strides[d];
  a.eps = 1e-5;
  return a;
}

int status_of(const exactune_qk_head_layer_norm_args& a) { return exactune_qk_head_layer_norm(&a); }
std::string last_error() { return exactune_runtime_last_error(); }

}  // namespace

TEST_CASE("qk runtime entry: argument errors and unserved problems are refused with the reason", "[qk_runtime_entry]") {
  CHECK(exactune_qk_head_layer_norm(nullptr) == EXACTUNE_INVALID_ARGUMENT);
  auto a = glm();
  a.k = nullptr;
  CHECK(status_of(a) == EXACTUNE_INVALID_ARGUMENT);
  a = glm();
  a.head_dim = 130;
  a.q_strides[2] = a.k_strides[2] = 130;
  CHECK(status_of(a) == EXACTUNE_NOT_SERVED);
  CHECK(last_error().find("head_dim 130") != std::string::npos);
  a = glm();
  a.k_strides[1] = 128;  // (B, H, S, D) memory seen as (B, S, H, D): a transposed view
  a.k_strides[2] = 4096 * 128;
  CHECK(status_of(a) == EXACTUNE_NOT_SERVED);
  CHECK(last_error().find("not contiguous") != std::string::npos);
  a = glm();
  a.q_out = reinterpret_cast<void*>(0x300002);
  CHECK(status_of(a) == EXACTUNE_NOT_SERVED);
  CHECK(last_error().find("2-byte aligned") != std::string::npos);
  a = glm();
  a.heads = 0;
  CHECK(status_of(a) == EXACTUNE_OK);
}
