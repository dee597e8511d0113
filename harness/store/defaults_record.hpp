// The verification record of a family's default configurations
// (reports/tables/<family>/verified_defaults.yaml, written by `exactune
// verify-defaults`): for each configuration the tables can return outside a
// tuned (variant, size) pair — every device default, the global default, their
// narrowed forms and the narrowed forms of tuned buckets — the sizes at which
// it was verified bit-exact, the sizes where it is no valid variant, and every
// size where it failed, with the first failure. `exactune tables` and
// `exactune emit-header` read it: a default serves only the sizes it was
// verified at.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace exactune {

// first, first + step, ..., last (first == last: one size).
struct SizeRange {
  int first = 0;
  int last = 0;
  int step = 1;

  bool contains(int size) const { return size >= first && size <= last && (size - first) % step == 0; }
  bool operator==(const SizeRange&) const = default;
};

// Sorted, distinct sizes as ranges: each maximal run of three or more sizes
// with one step is a range, any other size stands alone.
std::vector<SizeRange> compact_sizes(const std::vector<int>& sizes);
// Every size the ranges hold, ascending.
std::vector<int> expand_sizes(const std::vector<SizeRange>& ranges);
bool contains_size(const std::vector<SizeRange>& ranges, int size);
// "4..8192 step 4", or "2244" for a single size.
std::string to_string(const SizeRange& range);
// The largest size a record may name: far above any family's sizes, and far
// enough below INT_MAX that stepping through a range cannot overflow.
inline constexpr int kMaxRecordedSize = 1 << 24;
// The inverse of to_string; throws exactune::input_error naming `what` on
// anything else, and on sizes outside 1..kMaxRecordedSize.
SizeRange parse_size_range(std::string_view text, std::string_view what);

inline constexpr int kDefaultsRecordFormatVersion = 1;
// Where `exactune verify-defaults` writes a family's record: under reports/tables/
// for the host's (--cpu), under reports/<gpu-slug>/ for a GPU's.
std::string defaults_record_path(std::string_view family);  // "<family>/verified_defaults.yaml"

struct SizeFailure {
  int size = 0;
  std::string first_failure;  // the first failing (case, disposition, message), or the compile error
};

struct VerifiedConfiguration {
  std::string variant;
  std::vector<std::string> roles;    // why the tables may return it, e.g. "default of NVIDIA H200"
  std::vector<SizeRange> verified;   // every case bit-exact
  std::vector<SizeRange> not_valid;  // sizes it was asked at where it is no valid variant (KernelFamily::exclusion)
  std::vector<SizeFailure> failed;   // ascending by size
};

struct DefaultsRecord {
  int format_version = kDefaultsRecordFormatVersion;
  std::string command;  // the command line that wrote it
  std::string family;
  std::string reference_recipe;  // KernelFamily::reference_recipe() when it was made
  std::string backend;           // Backend::description()
  std::string target;            // Backend::target()
  // The GPU it ran on, as the CUDA driver names it; "" for the host (--cpu).
  // A GPU's record (<reports>/<gpu-slug>/<family>/verified_defaults.yaml) is
  // that GPU's evidence; the host's (<reports>/tables/<family>/) serves the
  // GPUs without a record of their own (store/family_tables.hpp).
  std::string device;
  std::string shape;      // the shape every size was verified on, its size parameter set to each size
  std::int64_t rows = 0;  // rows of that shape at each size
  std::vector<std::string> cases;
  std::vector<VerifiedConfiguration> configurations;

  // The configuration of `variant`; nullptr when the record has none.
  const VerifiedConfiguration* find(std::string_view variant) const;
};

std::string to_defaults_yaml(const DefaultsRecord& record);
// Throws exactune::input_error "<source>:<line>: <what is wrong>".
DefaultsRecord parse_defaults_yaml(std::string_view yaml_text, const std::string& source);
DefaultsRecord load_defaults_file(const std::string& path);

}  // namespace exactune
