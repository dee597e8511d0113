#include "verify/bf16_compare.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include <exactune/error.hpp>

namespace exactune {
namespace {

bool is_nan(std::uint16_t v) { return (v & 0x7fff) > 0x7f80; }

// Maps bf16 bits onto integers that increase with the value; -0 sits just below +0.
std::int64_t ordered(std::uint16_t v) { return (v & 0x8000) ? -static_cast<std::int64_t>(v & 0x7fff) - 1 : v; }

}  // namespace

float bf16_value(std::uint16_t bits) {
  const std::uint32_t word = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &word, sizeof f);
  return f;
}

std::int64_t bf16_ulp_distance(std::uint16_t a, std::uint16_t b) {
  if (is_nan(a) || is_nan(b)) return -1;
  return std::llabs(ordered(a) - ordered(b));
}

Mismatch mismatch_at(std::int64_t index, std::int64_t row_length, std::uint16_t expected, std::uint16_t actual) {
  return Mismatch{index / row_length, index % row_length, expected, actual, bf16_ulp_distance(expected, actual)};
}

ComparisonResult compare_bf16(std::span<const std::uint16_t> expected, std::span<const std::uint16_t> actual,
                              std::int64_t row_length) {
  if (expected.size() != actual.size()) {
    throw error(fmt::format("compare_bf16: {} expected elements but {} actual", expected.size(), actual.size()));
  }
  if (row_length <= 0) throw error("compare_bf16: the row length must be positive");
  ComparisonResult result;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] == actual[i]) continue;
    if (result.mismatches++ == 0) {
      result.first = mismatch_at(static_cast<std::int64_t>(i), row_length, expected[i], actual[i]);
    }
  }
  return result;
}

std::string describe(const Mismatch& m) {
  const std::string distance = m.ulps < 0 ? "NaN involved" : fmt::format("{} ulp", m.ulps);
  const std::string output = m.output.empty() ? "" : fmt::format("output {}, ", m.output);
  return fmt::format("{}row {}, column {}: expected 0x{:04x} ({}), got 0x{:04x} ({}), {}", output, m.row, m.column,
                     m.expected, bf16_value(m.expected), m.actual, bf16_value(m.actual), distance);
}

}  // namespace exactune
