// The family's part of the C ABI (libexactune_capi.so, loaded here with dlopen
// as ctypes loads it: support/capi_library.hpp): the covering list, a pairwise
// cover that the torch cross-check runs instead of the whole space, is a few
// of the valid variants with every read among them, and refuses an unserved
// hidden size or a too small buffer as the full list does, with a reason that
// names the argument.
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "layer_norm_modulate_token_major/capi/exactune_token_major_capi.h"
#include "support/capi_library.hpp"

namespace {

using exactune_test::capi_entry;
using exactune_test::check_refused;

// The family's entries of the built library.
struct TokenMajorCapi {
  int (*list_variants)(int32_t, char*,
                       size_t) = capi_entry<int (*)(int32_t, char*, size_t)>("exactune_token_major_list_variants");
  int (*list_covering_variants)(int32_t, char*, size_t) =
      capi_entry<int (*)(int32_t, char*, size_t)>("exactune_token_major_list_covering_variants");
};

const TokenMajorCapi& capi() {
  static const TokenMajorCapi entries;
  return entries;
}

}  // namespace

TEST_CASE("the token-major covering list is a few of the valid variants, with every read, refused as the full one",
          "[capi_validation]") {
  auto lines = [](int (*list)(int32_t, char*, size_t), int32_t hidden) {
    std::vector<char> names(1 << 17);
    REQUIRE(list(hidden, names.data(), names.size()) == EXACTUNE_OK);
    std::istringstream text(names.data());
    std::vector<std::string> result;
    for (std::string line; std::getline(text, line);) result.push_back(line);
    return result;
  };
  const std::vector<std::string> all = lines(capi().list_variants, 1000);
  const std::vector<std::string> cover = lines(capi().list_covering_variants, 1000);
  INFO(cover.size() << " covering of " << all.size());
  CHECK(cover.size() * 4 < all.size());
  for (const std::string& name : cover) CHECK(std::find(all.begin(), all.end(), name) != all.end());
  for (const char* read : {"copy_", "tile", "lanes"}) {
    INFO(read);
    CHECK(std::any_of(cover.begin(), cover.end(), [&](const std::string& n) { return n.rfind(read, 0) == 0; }));
  }
  char names[64];
  check_refused(capi().list_covering_variants(62, names, sizeof names), EXACTUNE_NOT_SERVED,
                "exactune_token_major_list_covering_variants: hidden 62");
  check_refused(capi().list_covering_variants(1000, names, sizeof names), EXACTUNE_INVALID_ARGUMENT, "needs");
}
