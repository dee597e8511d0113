// Reads the resource report that ptxas prints with -v (registers, spills, stack,
// shared memory) out of a compile log, for one entry function: a template file
// may hold several kernels, and one NVRTC program compiles several, each
// reported in its own block.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include <exactune/compiled_kernel.hpp>

namespace exactune {

// The figures of `entry` (its lowered name); nullopt when the log has no
// "Used N registers" line for it.
std::optional<KernelResources> parse_ptxas_report(std::string_view log, std::string_view entry);

// The part of a program's log that concerns `entry`: the lines before the
// first entry's block (the front end's warnings, the module's globals) and
// the entry's own block, so a kernel compiled with others keeps a log of its own.
std::string log_of_entry(std::string_view log, std::string_view entry);

}  // namespace exactune
