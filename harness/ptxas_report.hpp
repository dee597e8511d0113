// Reads the resource report that ptxas prints with -v (registers, spills, stack,
// shared memory) out of a compile log.
#pragma once
#include <string_view>

#include "compiled_kernel.hpp"

namespace exactune {

// Figures of the last function reported in the log (a compile unit here holds one
// kernel); throws exactune::error when the log holds no "Used N registers" line.
KernelResources parse_ptxas_report(std::string_view log);

}  // namespace exactune
