// The family's C ABI (libexactune_capi.so, loaded here with dlopen as ctypes
// loads it: support/capi_library.hpp) refuses bad arguments before it needs a
// GPU, compiles, loads or copies anything: each call returns
// EXACTUNE_NOT_SERVED for a head_dim the family does not serve or more rows
// than it counts, and EXACTUNE_INVALID_ARGUMENT for arguments that describe no
// problem, with a reason that names the argument. Caller buffers that a late
// check would read past end at a page that cannot be read, so such a read
// crashes the test. The runtime's table query (linked into this suite)
// refuses unserved head_dims too.
#include <exactune/runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "catch.hpp"
#include "qk_head_layer_norm/capi/exactune_qk_capi.h"
#include "support/capi_library.hpp"

namespace {

using exactune_test::capi_entry;
using exactune_test::check_refused;
using exactune_test::GuardedBuffer;

// The family's entries of the built library.
struct QkCapi {
  const char* (*last_error)() = capi_entry<const char* (*)()>("exactune_qk_last_error");
  int (*list_variants)(int32_t, char*,
                       size_t) = capi_entry<int (*)(int32_t, char*, size_t)>("exactune_qk_list_variants");
  int (*reference)(const exactune_qk_problem*, uint16_t*, uint16_t*, float*, float*, float*, float*) =
      capi_entry<int (*)(const exactune_qk_problem*, uint16_t*, uint16_t*, float*, float*, float*, float*)>(
          "exactune_qk_reference");
  int (*run_variant)(const exactune_qk_problem*, const char*, uint16_t*, uint16_t*) =
      capi_entry<int (*)(const exactune_qk_problem*, const char*, uint16_t*, uint16_t*)>("exactune_qk_run_variant");
};

const QkCapi& capi() {
  static const QkCapi entries;
  return entries;
}

// The first valid qk variant at head_dim 64.
std::string qk_variant() {
  std::vector<char> names(1 << 16);
  REQUIRE(capi().list_variants(64, names.data(), names.size()) == EXACTUNE_OK);
  const std::string all = names.data();
  return all.substr(0, all.find('\n'));
}

}  // namespace

TEST_CASE("qk list_variants lists a served head_dim, refuses unserved ones, naming them, and writes no names",
          "[capi_validation]") {
  CHECK_FALSE(qk_variant().empty());
  exactune_test::check_list_refusals(capi().list_variants, "exactune_qk_list_variants", "head_dim",
                                     {{62, EXACTUNE_NOT_SERVED},
                                      {132, EXACTUNE_NOT_SERVED},
                                      {0, EXACTUNE_INVALID_ARGUMENT},
                                      {-4, EXACTUNE_INVALID_ARGUMENT}});
  // The family's own last error says what the library's does.
  CHECK(std::string(capi().last_error()) == exactune_test::capi_last_error());
}

TEST_CASE("the qk ABI refuses unserved head_dims and bad arguments before reading q or k", "[capi_validation]") {
  const std::string variant = qk_variant();
  GuardedBuffer q(64), k(64);
  std::vector<uint16_t> q_out(64), k_out(64);
  const exactune_qk_problem base{q.data(), k.data(), 1, 1, 1, 64, 1e-6};
  for (const int32_t head_dim : {62, 132, 1 << 20}) {
    exactune_qk_problem p = base;
    p.head_dim = head_dim;
    const std::string reason = "head_dim " + std::to_string(head_dim);
    check_refused(capi().run_variant(&p, variant.c_str(), q_out.data(), k_out.data()), EXACTUNE_NOT_SERVED,
                  "exactune_qk_run_variant: " + reason);
    check_refused(capi().reference(&p, q_out.data(), k_out.data(), nullptr, nullptr, nullptr, nullptr),
                  EXACTUNE_NOT_SERVED, "exactune_qk_reference: " + reason);
  }
  exactune_qk_problem p = base;
  p.heads = 0;
  check_refused(capi().run_variant(&p, variant.c_str(), q_out.data(), k_out.data()), EXACTUNE_INVALID_ARGUMENT,
                "heads 0 must be >= 1");
  p = base;
  p.k = nullptr;
  check_refused(capi().run_variant(&p, variant.c_str(), q_out.data(), k_out.data()), EXACTUNE_INVALID_ARGUMENT,
                "k is NULL");
  p = base;
  p.tokens = 1 << 18;  // 2^30 rows: past the family's own limit
  p.heads = 1 << 12;
  check_refused(capi().run_variant(&p, variant.c_str(), q_out.data(), k_out.data()), EXACTUNE_NOT_SERVED,
                "rows per tensor");
  p.tokens = 1 << 20;  // 2^32 rows: past what an int counts
  check_refused(capi().run_variant(&p, variant.c_str(), q_out.data(), k_out.data()), EXACTUNE_NOT_SERVED,
                "batch * tokens * heads is more than");
  check_refused(capi().run_variant(&base, "no_such_variant", q_out.data(), k_out.data()), EXACTUNE_INVALID_ARGUMENT,
                "variant 'no_such_variant' is no valid");
  check_refused(capi().run_variant(&base, variant.c_str(), q_out.data(), nullptr), EXACTUNE_INVALID_ARGUMENT,
                "k_out is NULL");
}

TEST_CASE("the runtime's table query offers no candidates at a head_dim the family does not serve",
          "[capi_validation]") {
  char text[4096];
  check_refused(exactune_runtime_candidates("qk_head_layer_norm", "NVIDIA H200", 9, 0, 132, 132, 64, text, sizeof text),
                EXACTUNE_NOT_SERVED, "head_dim 132", exactune_runtime_last_error);
}
