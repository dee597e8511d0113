// The family's C ABI (libexactune_capi.so, loaded here with dlopen as ctypes
// loads it: support/capi_library.hpp) refuses bad arguments before it needs a
// GPU, compiles, loads or copies anything: each call returns
// EXACTUNE_NOT_SERVED for a hidden size the family does not serve and
// EXACTUNE_INVALID_ARGUMENT for arguments that describe no problem, with a
// reason that names the argument. Caller buffers that a late check would read
// past end at a page that cannot be read, so such a read crashes the test.
// The runtime's table query (linked into this suite) refuses unserved sizes too.
#include <exactune/runtime.h>

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/gpu/cuda_driver.hpp"
#include "catch.hpp"
#include "layer_norm_modulate/capi/exactune_capi.h"
#include "support/capi_library.hpp"

namespace {

using exactune_test::capi_entry;
using exactune_test::check_refused;
using exactune_test::GuardedBuffer;

// The family's entries of the built library.
struct Capi {
  int (*describe_gpu)(char*, size_t) = capi_entry<int (*)(char*, size_t)>("exactune_describe_gpu");
  int (*list_variants)(int32_t, char*, size_t) = capi_entry<int (*)(int32_t, char*, size_t)>("exactune_list_variants");
  int (*reference)(const exactune_problem*, uint16_t*, uint16_t*, float*, float*) =
      capi_entry<int (*)(const exactune_problem*, uint16_t*, uint16_t*, float*, float*)>("exactune_reference");
  int (*run_variant)(const exactune_problem*, const char*, uint16_t*) =
      capi_entry<int (*)(const exactune_problem*, const char*, uint16_t*)>("exactune_run_variant");
};

const Capi& capi() {
  static const Capi entries;
  return entries;
}

constexpr const char* kVariant = "w1_r1_predicated_v8_reload_rcp_late_f32_full";

// A consistent problem: x of batch * tokens * hidden, an embedding of six rows per batch element.
struct ModulateBuffers {
  ModulateBuffers(int32_t batch, int32_t tokens, int32_t hidden)
      : x(std::size_t(batch) * tokens * (hidden > 0 ? hidden : 1)),
        embedding(std::size_t(batch) * 6 * (hidden > 0 ? hidden : 1)),
        out(x.size()) {
    problem = exactune_problem{x.data(),
                               embedding.data(),
                               static_cast<int64_t>(embedding.size()),
                               hidden,
                               0,
                               6 * int64_t{hidden},
                               batch,
                               tokens,
                               hidden,
                               1e-6};
  }
  std::vector<uint16_t> x, embedding, out;
  exactune_problem problem;
};

}  // namespace

TEST_CASE("list_variants refuses unserved hidden sizes, naming them, and writes no names", "[capi_validation]") {
  exactune_test::check_list_refusals(capi().list_variants, "exactune_list_variants", "hidden",
                                     {{62, EXACTUNE_NOT_SERVED},
                                      {8196, EXACTUNE_NOT_SERVED},
                                      {1 << 20, EXACTUNE_NOT_SERVED},
                                      {0, EXACTUNE_INVALID_ARGUMENT},
                                      {-4, EXACTUNE_INVALID_ARGUMENT}});
}

TEST_CASE("list_variants lists a served size, and refuses a NULL or too small buffer as an invalid argument",
          "[capi_validation]") {
  std::vector<char> names(1 << 16);
  REQUIRE(capi().list_variants(64, names.data(), names.size()) == EXACTUNE_OK);
  CHECK(std::string(names.data()).find(std::string(kVariant) + "\n") != std::string::npos);
  check_refused(capi().list_variants(64, nullptr, 100), EXACTUNE_INVALID_ARGUMENT, "names is NULL");
  check_refused(capi().list_variants(64, names.data(), 8), EXACTUNE_INVALID_ARGUMENT, "needs");
  check_refused(capi().describe_gpu(nullptr, 100), EXACTUNE_INVALID_ARGUMENT, "text is NULL");
}

TEST_CASE("run_variant and reference refuse an unserved hidden size before reading x, even a buffer too short for it",
          "[capi_validation]") {
  // The size of a problem at hidden 64, with the hidden size changed: what the
  // torch cross-check once passed.
  GuardedBuffer x(64), embedding(6 * 64);
  std::vector<uint16_t> out(64);
  for (const int32_t hidden : {62, 8196, 1 << 20}) {
    const exactune_problem problem{
        x.data(), embedding.data(), 6 * int64_t{hidden}, hidden, 0, 6 * int64_t{hidden}, 1, 1, hidden, 1e-6};
    const std::string reason = "hidden " + std::to_string(hidden);
    check_refused(capi().run_variant(&problem, kVariant, out.data()), EXACTUNE_NOT_SERVED,
                  "exactune_run_variant: " + reason);
    check_refused(capi().reference(&problem, out.data(), nullptr, nullptr, nullptr), EXACTUNE_NOT_SERVED,
                  "exactune_reference: " + reason);
  }
}

TEST_CASE("run_variant refuses arguments that describe no problem, naming the argument", "[capi_validation]") {
  const auto refused = [](ModulateBuffers b, const char* variant, const std::string& reason, int status) {
    check_refused(capi().run_variant(&b.problem, variant, b.out.data()), status, "exactune_run_variant: " + reason);
  };
  check_refused(capi().run_variant(nullptr, kVariant, nullptr), EXACTUNE_INVALID_ARGUMENT, "problem is NULL");
  ModulateBuffers b(2, 3, 64);
  b.problem.tokens = 0;
  refused(b, kVariant, "tokens 0 must be >= 1", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  b.problem.batch = -1;
  refused(b, kVariant, "batch -1 must be >= 1", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  b.problem.hidden = -4;
  refused(b, kVariant, "hidden -4", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  b.problem.eps = 0;
  refused(b, kVariant, "eps 0", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  b.problem.x = nullptr;
  refused(b, kVariant, "x is NULL", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  b.problem.embedding = nullptr;
  refused(b, kVariant, "embedding is NULL", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  b.problem.embedding_elements = 64;
  refused(b, kVariant, "embedding_elements 64", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  b.problem.modulation_stride = 100;
  refused(b, kVariant, "modulation_stride 100", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  b.problem.scale_offset = 6 * 64;
  refused(b, kVariant, "scale_offset 384", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  refused(b, nullptr, "variant is NULL", EXACTUNE_INVALID_ARGUMENT);
  refused(b, "w3_no_such_variant", "variant 'w3_no_such_variant' is no valid", EXACTUNE_INVALID_ARGUMENT);
  check_refused(capi().run_variant(&b.problem, kVariant, nullptr), EXACTUNE_INVALID_ARGUMENT, "out is NULL");
  b.problem.scale_offset = 66;  // rows at an odd element offset: no 8-byte loads
  refused(b, kVariant, "scale_offset 66 is not a multiple of 4 elements", EXACTUNE_NOT_SERVED);
}

TEST_CASE("run_variant refuses more rows than a kernel counts as not served, without reading x", "[capi_validation]") {
  GuardedBuffer x(64), embedding(6 * 64);
  std::vector<uint16_t> out(64);
  const exactune_problem problem{x.data(), embedding.data(), INT_MAX * int64_t{6 * 64}, 64, 0, 6 * 64, INT_MAX, 2, 64,
                                 1e-6};
  check_refused(capi().run_variant(&problem, kVariant, out.data()), EXACTUNE_NOT_SERVED,
                "batch * tokens is more than the 2147483647 served");
}

TEST_CASE("without a GPU a problem that passes every check is an error naming why, not an argument error",
          "[capi_validation]") {
  INFO("the CPU suites run with CUDA_VISIBLE_DEVICES empty (tests/CMakeLists.txt): no GPU is visible to them");
  REQUIRE(exactune::why_no_gpu().has_value());
  ModulateBuffers b(1, 2, 64);
  check_refused(capi().run_variant(&b.problem, kVariant, b.out.data()), EXACTUNE_ERROR, *exactune::why_no_gpu());
}

TEST_CASE("the runtime's table query offers no candidates at a size the family does not serve", "[capi_validation]") {
  char text[4096];
  for (const int64_t hidden : {int64_t{62}, int64_t{8196}, int64_t{1} << 20}) {
    check_refused(
        exactune_runtime_candidates("layer_norm_modulate", "NVIDIA H200", 9, 0, 132, hidden, 64, text, sizeof text),
        EXACTUNE_NOT_SERVED, "hidden " + std::to_string(hidden), exactune_runtime_last_error);
  }
  CHECK(exactune_runtime_candidates("layer_norm_modulate", "NVIDIA H200", 9, 0, 132, 64, 64, text, sizeof text) ==
        EXACTUNE_OK);
}
