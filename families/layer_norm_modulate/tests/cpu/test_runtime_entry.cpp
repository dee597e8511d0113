// The runtime's C entry for this family without a GPU: argument errors are
// EXACTUNE_INVALID_ARGUMENT, problems aten would run through another kernel
// are EXACTUNE_NOT_SERVED with the reason, both decided before any GPU work
// (the pointers here are never dereferenced), and the built-in H200 table is
// resolved for the H200 and for GPUs it was not measured on.
#include <cmath>
#include <cstdint>
#include <string>

#include "backends/gpu/cuda_driver.hpp"
#include "catch.hpp"
#include "layer_norm_modulate/runtime/exactune_layer_norm_modulate.h"
#include "layer_norm_modulate/tests/cpu/sana_runtime_args.hpp"

namespace {

using exactune_test::fake;

exactune_layer_norm_modulate_args sana() {
  return exactune_test::sana_runtime_args(exactune_test::XMemory::contiguous);
}

int status_of(const exactune_layer_norm_modulate_args& a) { return exactune_layer_norm_modulate(&a); }
std::string last_error() { return exactune_runtime_last_error(); }

}  // namespace

TEST_CASE("runtime entry: argument errors are invalid arguments, with the reason", "[runtime_entry]") {
  CHECK(exactune_layer_norm_modulate(nullptr) == EXACTUNE_INVALID_ARGUMENT);
  CHECK(last_error() == "exactune_layer_norm_modulate: args is NULL");
  auto a = sana();
  a.out = nullptr;
  CHECK(status_of(a) == EXACTUNE_INVALID_ARGUMENT);
  a = sana();
  a.tokens = -1;
  CHECK(status_of(a) == EXACTUNE_INVALID_ARGUMENT);
  CHECK(last_error().find("tokens -1") != std::string::npos);
  a = sana();
  a.eps = std::nan("");
  CHECK(status_of(a) == EXACTUNE_INVALID_ARGUMENT);
  CHECK(std::string(exactune_status_name(EXACTUNE_INVALID_ARGUMENT)) == "EXACTUNE_INVALID_ARGUMENT");
}

TEST_CASE("runtime entry: problems aten runs through another kernel are not served", "[runtime_entry]") {
  const auto not_served = [](exactune_layer_norm_modulate_args a, const std::string& reason) {
    INFO(reason);
    CHECK(status_of(a) == EXACTUNE_NOT_SERVED);
    CHECK(last_error().find(reason) != std::string::npos);
  };
  auto a = sana();
  a.hidden = a.x_strides[1] = 62;
  a.x_strides[0] = 1024 * 62;
  not_served(a, "hidden 62");
  a = sana();
  a.hidden = a.x_strides[1] = 8196;
  a.x_strides[0] = 1024 * 8196;
  not_served(a, "hidden 8196");
  a = sana();
  a.x_strides[0] = 2240;  // Sana's token-major layout: (B, C, N) memory
  a.x_strides[1] = 1;
  a.x_strides[2] = 1024;
  not_served(a, "not contiguous");
  a = sana();
  a.shift_row_stride = 3 * 2240;
  not_served(a, "row strides differ");
  a = sana();
  a.x = fake(0x100004);  // 4-byte aligned: aten's LayerNorm would not vectorize
  not_served(a, "only 4-byte aligned");
  a = sana();
  a.scale = fake(0x200002);  // a chunk at an odd element offset
  not_served(a, "only 2-byte aligned");
}

TEST_CASE("runtime entry: an empty problem succeeds with nothing launched", "[runtime_entry]") {
  auto a = sana();
  a.tokens = 0;
  CHECK(status_of(a) == EXACTUNE_OK);
}

TEST_CASE("runtime entry: without a GPU a served problem is an error naming why", "[runtime_entry]") {
  // The problem's made-up pointers must never reach a GPU.
  INFO("the CPU suites run with CUDA_VISIBLE_DEVICES empty (tests/CMakeLists.txt): no GPU is visible to them");
  REQUIRE(exactune::why_no_gpu().has_value());
  CHECK(status_of(sana()) == EXACTUNE_ERROR);
  CHECK(last_error().find(*exactune::why_no_gpu()) != std::string::npos);
}

TEST_CASE("runtime tables: the H200 table serves the H200, its model under another name, and its architecture",
          "[runtime_entry]") {
  char text[4096];
  const auto first_lines = [&](const char* name, int cc_major, int sm_count, int hidden, long long rows) {
    REQUIRE(exactune_runtime_candidates("layer_norm_modulate", name, cc_major, 0, sm_count, hidden, rows, text,
                                        sizeof text) == EXACTUNE_OK);
    const std::string all = text;
    const std::size_t second = all.find('\n', all.find('\n') + 1);
    return all.substr(0, second);
  };
  const std::string h200 = first_lines("NVIDIA H200", 9, 132, 3072, 4608);
  CHECK(h200.find("device\tthe table of NVIDIA H200 (sm_90, 132 SMs) (same name)\n") == 0);
  CHECK(h200.find("\ttuned bucket\tverified") != std::string::npos);
  CHECK(first_lines("NVIDIA GH200 480GB", 9, 132, 3072, 4608).find("same compute capability and SM count") !=
        std::string::npos);
  CHECK(first_lines("NVIDIA H100 PCIe", 9, 114, 3072, 4608).find("device default") != std::string::npos);
  CHECK(first_lines("NVIDIA A100-SXM4-80GB", 8, 108, 3072, 4608) ==
        "device\tthe global default (no table for this architecture)\n"
        "w4_r1_predicated_v8_reload_rcp_late_f32_full\tglobal default\tverified");
  CHECK(exactune_runtime_candidates("layer_norm_modulate", "x", 9, 0, 132, 0, 1, text, sizeof text) ==
        EXACTUNE_INVALID_ARGUMENT);
  CHECK(exactune_runtime_candidates("layer_norm_modulate", "NVIDIA H200", 9, 0, 132, 2240, 1, text, 8) ==
        EXACTUNE_INVALID_ARGUMENT);
}
