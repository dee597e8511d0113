// The runtime's view of the tables `exactune tables` writes (exactune_tables.json):
// per family, per GPU that was swept, which variant to launch at each size and
// row count. Pure: reading and resolving need no GPU, so CI tests every rule.
//
// Resolution follows the generated header's select(): the device by exact name,
// else the same compute capability and SM count, else the same architecture,
// else none; then, on a device found by name or by model, the tuned bucket; then
// the device's default and its narrower fallbacks; then the family's global
// default. The runtime tries those candidates in order and launches the first
// that was verified at the size (the tables' "verified" list: tuned choices at
// their sizes, defaults where exactune verify-defaults proved them) and that
// the family's size fallbacks let take the data; with none, it serves nothing.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <exactune/family.hpp>

namespace exactune {

// Whether evidence for `evidence_device` (a GPU's name: its sweep or its own
// record; "": the host's record) serves the problems of `device`, the GPU the
// tables resolved a problem to ("" when none): evidence for that GPU, or the
// host's record where that GPU has no record of its own. The one rule of the
// runtime, the store (store/family_tables.hpp) and the per-GPU files; the
// generated select() (report/generated/select.inc.hpp) spells it in C++17.
inline bool evidence_serves(std::string_view evidence_device, std::string_view device, bool device_has_own_record) {
  return evidence_device.empty() ? !device_has_own_record : evidence_device == device;
}

// A GPU as the runtime sees it: what tables are looked up by.
struct DeviceIdentity {
  std::string name;  // "NVIDIA H200"
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;

  std::string describe() const;  // "NVIDIA H200 (sm_90, 132 SMs)"
};

struct TableBucket {
  int size = 0;
  std::optional<std::int64_t> max_rows;  // none: every larger row count
  std::string variant;
  std::vector<std::string> fallbacks;  // the variant narrowed for sizes or data it cannot take
};

struct TableDevice {
  DeviceIdentity identity;
  std::string default_variant;
  std::vector<std::string> default_fallbacks;  // the default narrowed for sizes or data it cannot take
  std::vector<TableBucket> buckets;            // by size, then by max_rows ascending, unbounded last
  bool own_record = false;                     // its defaults were verified on it: only evidence for it serves it
};

// A variant proven bit-exact at first, first + step, ..., last.
struct VerifiedRange {
  std::string variant;
  int first = 0;
  int last = 0;
  int step = 1;
  // The device whose problems it serves (TableDevice's name); "": the host's
  // record, serving every device without a record of its own, and none.
  std::string device;
};

struct FamilyTable {
  std::string family;
  std::string size_parameter;  // the family's size parameter: the key of a bucket's size
  std::vector<TableDevice> devices;
  std::string global_default;
  std::vector<VerifiedRange> verified;

  // Whether `variant` may serve `size` for the problems of `device` (the one
  // the GPU resolved to; nullptr: none): by evidence for it, or, where it has
  // no record of its own, by the host's.
  bool verified_at(std::string_view variant, int size, const TableDevice* device) const;
};

struct RuntimeTables {
  std::string source;  // where they were read from, for messages
  std::vector<FamilyTable> families;

  const FamilyTable* find(std::string_view family) const;  // nullptr when the family has no table
};

// Throws exactune::input_error "<source>: <json path>: <what is wrong>".
RuntimeTables parse_runtime_tables(std::string_view json_text, const std::string& source);

enum class DeviceMatch { exact_name, same_model, same_architecture, none };

struct DeviceResolution {
  const TableDevice* device = nullptr;  // nullptr when match is none
  DeviceMatch match = DeviceMatch::none;

  // One line for the log, e.g. "the table of NVIDIA H200 (same compute capability and SM count)".
  std::string describe() const;
};

DeviceResolution resolve_device(const FamilyTable& table, const DeviceIdentity& gpu);

// The steps of the fallback chain, in the order they are tried.
enum class CandidateStep {
  tuned_bucket,
  tuned_bucket_fallback,
  device_default,
  device_default_fallback,
  global_default
};
std::string_view step_name(CandidateStep step);  // "tuned bucket", ...

struct TableCandidate {
  std::string variant;
  CandidateStep step = CandidateStep::global_default;
};

// The row counts that tell the tuned buckets of `size` apart on the resolved
// device: each bucket's max_rows in order (none: unbounded), empty where the
// device's buckets do not apply (table_candidates). Every row count of one
// bucket gets the same candidates, so the runtime keys its plans by bucket.
std::vector<std::optional<std::int64_t>> bucket_bounds(const DeviceResolution& resolution, int size);
// The bucket `rows` falls in: the first whose bound it does not pass, else
// bounds.size() (past every bounded bucket, and no unbounded one).
std::size_t bucket_of(const std::vector<std::optional<std::int64_t>>& bounds, std::int64_t rows);

// Every variant worth trying for `size` and `rows`, best first, without repeats.
std::vector<TableCandidate> table_candidates(const FamilyTable& table, const DeviceResolution& resolution, int size,
                                             std::int64_t rows);

// The candidate the runtime serves, and why each one before it was passed over.
struct CandidateChoice {
  std::optional<TableCandidate> chosen;  // none: serve nothing, run the framework's chain
  std::string refusals;                  // "; <step> <variant>: <why>" per candidate passed over
};

// The first of table_candidates that is a valid variant of `family` at
// `size`, was verified there (FamilyTable::verified) and that no size
// fallback of the family rules out for `size` and `alignment` (bytes: e.g.
// 16-byte loads need 16-byte aligned data).
CandidateChoice choose_candidate(const KernelFamily& family, const FamilyTable& table,
                                 const DeviceResolution& resolution, int size, std::int64_t rows, unsigned alignment);
// The same with valid_variants(family, size) given: enumerating the space is
// the costly part, once per size.
CandidateChoice choose_candidate(const KernelFamily& family, const std::vector<Variant>& valid,
                                 const FamilyTable& table, const DeviceResolution& resolution, int size,
                                 std::int64_t rows, unsigned alignment);

}  // namespace exactune
