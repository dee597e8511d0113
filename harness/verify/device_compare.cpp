#include "verify/device_compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>

#include <exactune/error.hpp>

namespace exactune {
namespace {

// compare_bits.cuh's compare_block_threads and compare_summary, as the host sees them.
constexpr unsigned kCompareBlockThreads = 256;
struct CompareSummary {
  std::uint64_t mismatches;
  std::uint64_t first_index;
};
static_assert(sizeof(CompareSummary) == 16);

std::uint16_t element_at(Backend& backend, DeviceAddress buffer, std::int64_t index) {
  std::uint16_t value = 0;
  backend.download(&value, buffer + static_cast<DeviceAddress>(index) * 2, sizeof value);
  return value;
}

}  // namespace

CompileRequest compare_bits_request(const std::string& target) {
  return CompileRequest{
      kCompareBitsKernel, "kernel_templates/compare_bits.cuh", "&exactune_kernels::compare_bits", target, {}};
}

DeviceComparer::DeviceComparer(Backend& backend, const LoadedKernel& compare_bits)
    : backend_(backend),
      compare_bits_(compare_bits),
      max_blocks_(std::max(1u, backend.resident_ctas(compare_bits, kCompareBlockThreads))),
      summary_(backend, sizeof(CompareSummary)) {}

std::int64_t total_elements(const std::vector<OutputRegion>& regions) {
  std::int64_t total = 0;
  for (const OutputRegion& region : regions) total += region.elements;
  return total;
}

ComparisonResult DeviceComparer::compare(const std::vector<OutputRegion>& regions, std::int64_t row_length) {
  if (row_length <= 0) throw error("the device compare: the row length must be positive");
  const DeviceAddress summary = summary_.address();
  backend_.fill(summary + offsetof(CompareSummary, mismatches), 0x00, sizeof(std::uint64_t));
  backend_.fill(summary + offsetof(CompareSummary, first_index), 0xff, sizeof(std::uint64_t));
  long long index_base = 0;
  for (const OutputRegion& region : regions) {
    const long long n = region.elements;
    if (n > 0) {
      const auto blocks = static_cast<unsigned>(
          std::min<long long>((n + kCompareBlockThreads - 1) / kCompareBlockThreads, max_blocks_));
      launch_kernel(backend_, compare_bits_, Dim3{blocks, 1, 1}, Dim3{kCompareBlockThreads, 1, 1}, region.reference,
                    region.output, n, index_base, summary);
    }
    index_base += n;
  }
  CompareSummary found{};
  backend_.download(&found, summary, sizeof found);

  ComparisonResult result;
  result.mismatches = static_cast<std::int64_t>(found.mismatches);
  if (found.mismatches == 0) return result;
  const auto total = static_cast<std::uint64_t>(index_base);
  if (found.first_index >= total || found.mismatches > total) {
    throw error(fmt::format("the device compare reported {} mismatches, the first at {}, in an output of {} elements",
                            found.mismatches, found.first_index, index_base));
  }
  const auto first = static_cast<std::int64_t>(found.first_index);
  std::int64_t region_start = 0, output_start = 0;
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const OutputRegion& region = regions[i];
    if (i > 0 && region.output_name != regions[i - 1].output_name) output_start = region_start;
    const std::int64_t index = first - region_start;
    if (index < region.elements) {
      result.first = mismatch_at(first - output_start, row_length, element_at(backend_, region.reference, index),
                                 element_at(backend_, region.output, index));
      result.first->output = region.output_name;
      break;
    }
    region_start += region.elements;
  }
  return result;
}

}  // namespace exactune
