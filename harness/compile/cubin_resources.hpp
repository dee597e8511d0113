// Reads a kernel's resources out of the cubin itself, for when NVRTC's log
// lacks the ptxas report (ptxas_report.hpp): the H200 machine's NVRTC 13.0.88
// drops it for some kernels, most often small ones. The cubin is an ELF file;
// its .nv.info section holds per-kernel attributes (registers, stack frame),
// and .nv.shared.<entry> is the kernel's static shared memory. Spill bytes are
// not in the ELF: spills live in the stack frame, so they are known to be zero
// only when the frame is. Its .text.<entry> section is the kernel's machine
// code, for telling whether two kernels compiled to the same instructions.
#pragma once
#include <optional>
#include <string_view>

#include <exactune/compiled_kernel.hpp>

namespace exactune {

// What the cubin records of `entry` (its lowered name).
struct CubinFigures {
  int registers = 0;
  int frame_bytes = 0;
  int shared_bytes = 0;  // static shared memory, less the 1 KiB the driver reserves on sm_90 and up
};

// nullopt when `cubin` is not a 64-bit little-endian ELF, has no such kernel
// or no register count for it; a malformed file is read no further than its bounds.
std::optional<CubinFigures> read_cubin_figures(std::string_view cubin, std::string_view entry);

// The figures ptxas -v would have printed, where the cubin tells them all:
// nullopt when read_cubin_figures finds nothing, or when the kernel has a
// stack frame (so its spill bytes are unknown).
std::optional<KernelResources> resources_from_cubin(std::string_view cubin, std::string_view entry);

// The kernel's machine code: the bytes of its .text.<entry> section, which are
// equal for two kernels that run the same instructions (the SASS a
// disassembler prints of them). nullopt when there is no such section.
std::optional<std::string_view> kernel_code(std::string_view cubin, std::string_view entry);

}  // namespace exactune
