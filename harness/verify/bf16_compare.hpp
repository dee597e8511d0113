// Bit comparison of bf16 outputs: as uint16 over the whole buffer, no tolerance;
// and how a mismatch is located and described, wherever it was found.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace exactune {

struct Mismatch {
  std::int64_t row = 0;
  std::int64_t column = 0;
  std::uint16_t expected = 0;
  std::uint16_t actual = 0;
  std::int64_t ulps = 0;  // distance in bf16 units in the last place; -1 when either is NaN
  std::string output{};   // the output it is in, where a workload has several (OutputRegion); else ""
};

struct ComparisonResult {
  std::int64_t mismatches = 0;
  std::optional<Mismatch> first;

  bool exact() const { return mismatches == 0; }
};

// Distance between two bf16 values counted in representable steps (+0 and -0 are
// one step apart, as they differ in bits); -1 when either is NaN.
std::int64_t bf16_ulp_distance(std::uint16_t a, std::uint16_t b);
float bf16_value(std::uint16_t bits);

// The mismatch at `index` of an output of rows of `row_length` elements.
Mismatch mismatch_at(std::int64_t index, std::int64_t row_length, std::uint16_t expected, std::uint16_t actual);

// The host's comparison of two whole outputs (the verifier compares on the
// device: verify/device_compare.hpp).
ComparisonResult compare_bf16(std::span<const std::uint16_t> expected, std::span<const std::uint16_t> actual,
                              std::int64_t row_length);

// "row 3, column 2239: expected 0x3f80 (1), got 0x3f81 (1.0078125), 1 ulp", after
// "output y, " where the mismatch names its output.
std::string describe(const Mismatch& m);

}  // namespace exactune
