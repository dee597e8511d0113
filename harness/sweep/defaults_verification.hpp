// Verification of the configurations a family's tables return outside a tuned
// (variant, size) pair: the global default, every device default, their
// narrowed forms (KernelFamily::size_fallbacks) and the narrowed forms of the
// tuned buckets, each at every size it can be returned at, through the verify
// stage on one shape per size. What `exactune verify-defaults` records
// (store/defaults_record.hpp) so that the tables serve a default only where it
// was proven.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

#include "store/defaults_record.hpp"
#include "store/family_tables.hpp"
#include "verify/verify_stage.hpp"

namespace exactune {

// Every size the family serves: each value of its size parameter that
// parameter_problem accepts, up to kLargestSizeScanned.
inline constexpr int kLargestSizeScanned = 1 << 16;
std::vector<int> served_sizes(const KernelFamily& family);

struct ConfigurationToVerify {
  Configuration configuration;
  std::vector<std::string> roles;
  std::vector<int> sizes;  // ascending
};

// What the tables can return outside a tuned pair, each with the sizes it can
// be returned at: the global default, the device defaults and their narrowed
// forms at every one of `sizes`; a tuned bucket's narrowed forms at the
// bucket's size. One entry per variant, its roles and sizes merged.
std::vector<ConfigurationToVerify> configurations_to_verify(const KernelFamily& family, const FamilyTables& tables,
                                                            const std::vector<int>& sizes);

// `shape` with the family's size parameter set to `size`, cut to its first
// `rows` rows; named "<shape>@<size parameter><size>". Throws
// exactune::input_error when the family does not take the combination.
Shape shape_at_size(const KernelFamily& family, const Shape& shape, int size, int rows);

struct DefaultsVerificationOptions {
  int rows = 5;  // rows of the shape at each size
  // Sizes compiled and verified together: a failure loses no other batch.
  // 0: enough for two full NVRTC programs a compile job, at least 128 (on an
  // H100 host's 16 jobs, batches of 128 made programs of 4 kernels, each
  // paying NVRTC's front end).
  std::size_t sizes_per_batch = 0;
  VerifyStageOptions stage;  // its variant_glob is set per configuration
  std::function<void(const std::string& variant, std::size_t done, std::size_t total)> on_size;
};

// The batch of sizes `options` asks for, its 0 resolved.
std::size_t sizes_per_batch(const DefaultsVerificationOptions& options);

// Runs the verify stage per configuration and batch of sizes and records, per
// configuration, the sizes verified, not valid and failed (with the first
// failure: a compile error, a failed case, or an error that stopped the batch).
// record.command is left for the caller.
DefaultsRecord verify_configurations(const KernelFamily& family, Backend& backend, const SupportKernels& support,
                                     const CompileCache& cache, const Shape& shape,
                                     const std::vector<ConfigurationToVerify>& configurations,
                                     const DefaultsVerificationOptions& options);

}  // namespace exactune
