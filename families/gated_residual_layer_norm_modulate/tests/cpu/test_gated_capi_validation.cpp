// The family's part of the C ABI (libexactune_capi.so, loaded with dlopen as
// ctypes loads it: support/capi_library.hpp): a problem without h, a gate row
// outside the embedding, a gate row a variant cannot load and a missing output
// are refused before anything is compiled or copied, naming the argument; the
// covering list is a few of the valid variants, refused as the full list is.
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "gated_residual_layer_norm_modulate/capi/exactune_gated_residual_capi.h"
#include "support/capi_library.hpp"

namespace {

using exactune_test::capi_entry;
using exactune_test::check_refused;
using exactune_test::GuardedBuffer;

using Reference = int (*)(const exactune_gated_residual_problem*, uint16_t*, uint16_t*);
using RunVariant = int (*)(const exactune_gated_residual_problem*, const char*, uint16_t*, uint16_t*);
using List = int (*)(int32_t, char*, size_t);

struct GatedCapi {
  Reference reference = capi_entry<Reference>("exactune_gated_residual_reference");
  RunVariant run_variant = capi_entry<RunVariant>("exactune_gated_residual_run_variant");
  List list_variants = capi_entry<List>("exactune_gated_residual_list_variants");
  List list_covering_variants = capi_entry<List>("exactune_gated_residual_list_covering_variants");
};

const GatedCapi& capi() {
  static const GatedCapi entries;
  return entries;
}

// A valid problem of 2 x 3 tokens of hidden 64 whose buffers end at unreadable pages.
struct Problem {
  static constexpr int kBatch = 2, kTokens = 3, kHidden = 64, kRows = 6;
  GuardedBuffer x{kBatch * kTokens * kHidden}, h{kBatch * kTokens * kHidden}, embedding{kBatch * kRows * kHidden};
  exactune_gated_residual_problem problem{};

  Problem() {
    problem.modulate = exactune_problem{
        x.data(), embedding.data(), kBatch * kRows * kHidden, kHidden, 0, kRows * kHidden, kBatch, kTokens, kHidden,
        1e-6};
    problem.h = h.data();
    problem.gate_offset = 2 * kHidden;
  }
};

std::vector<std::string> lines(List list, int32_t hidden) {
  std::vector<char> names(1 << 17);
  REQUIRE(list(hidden, names.data(), names.size()) == EXACTUNE_OK);
  std::istringstream text(names.data());
  std::vector<std::string> result;
  for (std::string line; std::getline(text, line);) result.push_back(line);
  return result;
}

}  // namespace

TEST_CASE("a gated residual problem without h or with gate outside the embedding is refused, naming it",
          "[gated_capi_validation]") {
  std::vector<uint16_t> residual(Problem::kBatch * Problem::kTokens * Problem::kHidden), out(residual.size());
  {
    Problem p;
    p.problem.h = nullptr;
    check_refused(capi().reference(&p.problem, residual.data(), out.data()), EXACTUNE_INVALID_ARGUMENT,
                  "exactune_gated_residual_reference: h is NULL");
  }
  for (int64_t offset : {int64_t{-1}, int64_t{5 * 64 + 1}}) {
    Problem p;
    p.problem.gate_offset = offset;
    check_refused(capi().reference(&p.problem, residual.data(), out.data()), EXACTUNE_INVALID_ARGUMENT,
                  "gate_offset " + std::to_string(offset) + " puts the row outside");
  }
  {
    Problem p;
    p.problem.modulate.x = nullptr;  // layer_norm_modulate's checks come first
    check_refused(capi().reference(&p.problem, residual.data(), out.data()), EXACTUNE_INVALID_ARGUMENT, "x is NULL");
  }
  check_refused(capi().reference(nullptr, residual.data(), out.data()), EXACTUNE_INVALID_ARGUMENT, "problem is NULL");
}

TEST_CASE("a variant run is refused for a gate row it cannot load or a missing output, before any compile",
          "[gated_capi_validation]") {
  std::vector<uint16_t> residual(Problem::kBatch * Problem::kTokens * Problem::kHidden), out(residual.size());
  const std::string v16 = "w1_r1_predicated_v16_reload_rcp_late_f32_full";
  {
    Problem p;
    p.problem.gate_offset = 2 * Problem::kHidden + 4;  // 8-byte aligned, not 16
    check_refused(capi().run_variant(&p.problem, v16.c_str(), residual.data(), out.data()), EXACTUNE_NOT_SERVED,
                  "gate_offset 132 is not a multiple of 8 elements");
  }
  {
    Problem p;
    check_refused(capi().run_variant(&p.problem, v16.c_str(), nullptr, out.data()), EXACTUNE_INVALID_ARGUMENT,
                  "residual is NULL");
    check_refused(capi().run_variant(&p.problem, v16.c_str(), residual.data(), nullptr), EXACTUNE_INVALID_ARGUMENT,
                  "out is NULL");
  }
}

TEST_CASE("the gated residual covering list is a few of the valid variants, refused as the full one",
          "[gated_capi_validation]") {
  const std::vector<std::string> all = lines(capi().list_variants, 2240);
  const std::vector<std::string> cover = lines(capi().list_covering_variants, 2240);
  INFO(cover.size() << " covering of " << all.size());
  CHECK(cover.size() * 4 < all.size());
  for (const std::string& name : cover) CHECK(std::find(all.begin(), all.end(), name) != all.end());
  exactune_test::check_list_refusals(capi().list_covering_variants, "exactune_gated_residual_list_covering_variants",
                                     "hidden", {{62, EXACTUNE_NOT_SERVED}});
}
