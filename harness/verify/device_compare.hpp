// The verifier's comparison on the device (kernel_templates/compare_bits.cuh):
// a run's output against the reference, bit for bit, with only a 16-byte
// summary and, when some element differs, the two values of the first
// difference crossing to the host. The compare kernel is a core support kernel,
// compiled and loaded beside every family's own (load_support_kernels).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <exactune/backend.hpp>
#include <exactune/compile_request.hpp>
#include <exactune/workload.hpp>

#include "verify/bf16_compare.hpp"

namespace exactune {

// The compare kernel's name among the support kernels.
inline constexpr const char* kCompareBitsKernel = "compare_bits";

CompileRequest compare_bits_request(const std::string& target);

class DeviceComparer {
 public:
  DeviceComparer(Backend& backend, const LoadedKernel& compare_bits);

  // Compares every region (an output in pieces counts its element indexes
  // across them, in order) and returns the count and the first mismatch, as
  // compare_bf16 would over the downloaded outputs; where the regions hold
  // several named outputs, the count is theirs together and the first
  // mismatch names its output, its row counted from that output's start. Queues the comparison
  // after whatever the backend runs; the summary's download waits for it.
  ComparisonResult compare(const std::vector<OutputRegion>& regions, std::int64_t row_length);

 private:
  Backend& backend_;
  const LoadedKernel& compare_bits_;
  unsigned max_blocks_;  // a grid the device runs at once: each thread loops over its share
  DeviceBuffer summary_;
};

// The elements of all regions together.
std::int64_t total_elements(const std::vector<OutputRegion>& regions);

}  // namespace exactune
