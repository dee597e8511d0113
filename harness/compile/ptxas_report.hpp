// Reads the resource report that ptxas prints with -v (registers, spills, stack,
// shared memory) out of a compile log, for one entry function: a template file
// may hold several kernels, each reported in its own block.
#pragma once
#include <optional>
#include <string_view>

#include <exactune/compiled_kernel.hpp>

namespace exactune {

// The figures of `entry` (its lowered name); nullopt when the log has no
// "Used N registers" line for it.
std::optional<KernelResources> parse_ptxas_report(std::string_view log, std::string_view entry);

}  // namespace exactune
