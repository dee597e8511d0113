// One problem instance of a family on a backend: its inputs, its reference
// output, and the launches the verifier and the timer need. The core drives a
// workload without knowing what the kernels compute.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <exactune/backend.hpp>
#include <exactune/family.hpp>

namespace exactune {

struct InputCase {
  std::string name;         // e.g. "a1e-4_e1e-6"
  std::string description;  // e.g. "x ~ 1e-4 * N(mu_row, 1)"
};

// The family's kernels that are not variants (reference, eager chain, copy),
// loaded once per backend and found by their request name.
class SupportKernels {
 public:
  void add(std::string name, std::unique_ptr<LoadedKernel> kernel);
  const LoadedKernel& get(const std::string& name) const;

 private:
  std::map<std::string, std::unique_ptr<LoadedKernel>> kernels_;
};

// One stretch of a run's output, compared on the device: `elements` 16-bit
// values at `output` (the variant's) and at `reference` (what they must be).
// A workload whose kernels return several outputs names each (`output_name`,
// e.g. "r" and "y"; "" where there is one): every output is compared bit for
// bit, and a mismatch says which output it is in, its row and column counted
// from that output's start. The regions of one output follow each other.
struct OutputRegion {
  DeviceAddress output = 0;
  DeviceAddress reference = 0;
  std::int64_t elements = 0;
  std::string output_name{};
};

class Workload {
 public:
  virtual ~Workload() = default;

  // The reference chain; its output is what every variant must reproduce.
  virtual void launch_reference() = 0;
  // Fills the variant's output buffer with a pattern no correct kernel writes
  // everywhere, so that an element left unwritten shows as a mismatch.
  virtual void poison_output() = 0;
  // Throws exactune::error when the variant cannot take these buffers (e.g. a
  // misaligned pointer, which aten would send to another kernel).
  virtual void launch_variant(const LoadedKernel& kernel, const Variant& variant) = 0;
  // The roofline: a copy of the bytes a fused kernel must read and write.
  virtual void launch_copy() = 0;

  // Where the output and the reference lie on the device: one region, or one
  // per piece of an output in pieces, or per output of a workload of several
  // (named, see OutputRegion), in download_output()'s order. Element indexes
  // (and so rows and columns) run across the regions of one output in this order.
  // The verifier compares these; the host never holds a whole output.
  virtual std::vector<OutputRegion> output_regions() const = 0;
  // The whole output on the host (tests, the C ABI).
  virtual std::vector<std::uint16_t> download_reference_output() = 0;
  virtual std::vector<std::uint16_t> download_output() = 0;
  virtual std::int64_t row_length() const = 0;
  virtual std::int64_t bytes_moved() const = 0;  // read + written by a fused kernel
};

// Buffer bytes for `elements` values of `element_size` bytes, rounded up to a
// multiple of 16, so that every buffer takes 16-byte loads to its end.
std::size_t padded_bytes(std::int64_t elements, std::size_t element_size);

// Throws exactune::input_error "<what> at 0x... is not <bytes>-byte aligned: <why>"
// when `address` is not: a kernel that would take another path in the
// framework, or a variant that cannot load it, refuses such buffers.
void require_aligned(DeviceAddress address, unsigned bytes, const std::string& what, const std::string& why);

}  // namespace exactune
