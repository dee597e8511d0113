// The host's bit comparison of bf16 outputs (verify/bf16_compare.hpp): the
// distance in representable steps it reports, and a comparison that counts
// every mismatch and locates and words the first. The device's comparison
// (test_device_compare.cpp) must agree with it.
#include <vector>

#include "catch.hpp"
#include "verify/bf16_compare.hpp"

using namespace exactune;

TEST_CASE("ulp distance counts representable bf16 steps") {
  CHECK(bf16_ulp_distance(0x3f80, 0x3f80) == 0);
  CHECK(bf16_ulp_distance(0x3f80, 0x3f81) == 1);
  CHECK(bf16_ulp_distance(0x0000, 0x8000) == 1);   // +0 and -0 differ in bits
  CHECK(bf16_ulp_distance(0x0001, 0x8001) == 3);   // smallest subnormals across zero
  CHECK(bf16_ulp_distance(0x7fc0, 0x3f80) == -1);  // NaN
}

TEST_CASE("compare_bf16 counts every mismatch and reports the first with row and column") {
  std::vector<std::uint16_t> expected(12, 0x3f80), actual = expected;
  actual[7] = 0x3f82;
  actual[10] = 0x0000;
  const ComparisonResult r = compare_bf16(expected, actual, 4);
  CHECK(r.mismatches == 2);
  REQUIRE(r.first);
  CHECK(r.first->row == 1);
  CHECK(r.first->column == 3);
  CHECK(r.first->ulps == 2);
  CHECK(describe(*r.first) == "row 1, column 3: expected 0x3f80 (1), got 0x3f82 (1.015625), 2 ulp");
  CHECK(compare_bf16(expected, expected, 4).exact());
}
