// The contract between a host-compiled kernel library and the CPU backend: the
// target's name, the one C signature every exported launcher has, and how
// launchers are named. The compiler writes what the backend loads and runs.
#pragma once
#include <string>
#include <string_view>

namespace exactune {

// The target the host compiler builds for and the CPU backend runs: kernels as
// host C++ in shared objects.
inline constexpr const char* kHostTarget = "host";

}  // namespace exactune

namespace exactune::host_exec {

// Runs the kernel over the grid on `workers` OS threads (0: one per hardware
// thread); args as cuLaunchKernel takes them, one pointer per parameter value.
// Returns null, or a message valid until the next launch on the calling thread.
// Every launcher forwards to exactune_host::launch (kernel_templates/host_cuda_simulator.hpp).
using HostLauncher = const char* (*)(const unsigned grid[3], const unsigned block[3], void** args, unsigned workers);

// Named by the request's cache key, so a kernel's symbol does not depend on
// which other kernels share its shared object.
inline std::string launcher_symbol(std::string_view request_key) {
  return "exactune_host_launch_" + std::string(request_key);
}

}  // namespace exactune::host_exec
