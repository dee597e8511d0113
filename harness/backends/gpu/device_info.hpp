// What a GPU is: the facts that name its reports (slug), choose what to compile
// for (arch), and size the timing (L2 for cold runs, bandwidth for the roofline).
#pragma once
#include <string>

namespace exactune {

struct GpuDescription {
  std::string name;  // "NVIDIA H200"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  long long l2_bytes = 0;
  int memory_clock_khz = 0;  // peak; 0 when the driver does not report it
  int memory_bus_bits = 0;   // 0 when the driver does not report it
  int sm_clock_khz = 0;      // typical SM clock; 0 when the driver does not report it
  std::string pci_bus_id;    // "00000000:1b:00.0" (domain:bus:device.function), as NVML names the GPU
  long long total_memory_bytes = 0;
  int driver_version = 0;     // e.g. 13000 for CUDA 13.0
  std::string nvrtc_version;  // e.g. "13.0"

  std::string arch() const;  // "sm_90"
  std::string slug() const;  // "nvidia-h200": lowercase name, runs of other characters as '-'
  // One line for logs and report headers, e.g.
  // "NVIDIA H200 (sm_90, 132 SMs, 60 MiB L2, 140 GiB, 6144-bit @ 2619 MHz; driver 13.0, NVRTC 13.0)".
  std::string summary() const;
  // The peak memory bandwidth: double data rate over the bus; 0 when the driver reports no clock or bus width.
  double peak_memory_bytes_per_second() const { return 2.0 * memory_clock_khz * 1e3 * memory_bus_bits / 8; }
};

// Throws exactune::error when there is no usable GPU or no GPU with this ordinal.
GpuDescription describe_gpu(int ordinal = 0);

}  // namespace exactune
