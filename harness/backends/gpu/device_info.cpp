#include "backends/gpu/device_info.hpp"

#include <fmt/format.h>

#include <cctype>

#include <exactune/error.hpp>

#include "backends/gpu/cuda_driver.hpp"
#include "compile/nvrtc_compiler.hpp"

namespace exactune {
namespace {

std::string cuda_version_text(int version) { return fmt::format("{}.{}", version / 1000, version % 1000 / 10); }

int required_attribute(CUdevice device, CUdevice_attribute attribute, const char* what) {
  int value = 0;
  const CUresult result = cuda_driver().cuDeviceGetAttribute(&value, attribute, device);
  if (result != CUDA_SUCCESS) throw_cuda_error(result, fmt::format("cuDeviceGetAttribute({})", what));
  return value;
}

// Memory clock and bus width only feed the summary; recent drivers may stop
// reporting them (CUDA 13 dropped them from cudaDeviceProp), so 0 means unknown.
int optional_attribute(CUdevice device, CUdevice_attribute attribute) {
  int value = 0;
  return cuda_driver().cuDeviceGetAttribute(&value, attribute, device) == CUDA_SUCCESS ? value : 0;
}

CUdevice device_at(int ordinal) {
  const CudaDriver& driver = cuda_driver();
  int count = 0;
  check(driver.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (ordinal < 0 || ordinal >= count) {
    throw error(fmt::format("there is no GPU {}: {} GPU(s) visible (ordinals 0 to {})", ordinal, count, count - 1));
  }
  CUdevice device = 0;
  check(driver.cuDeviceGet(&device, ordinal), "cuDeviceGet");
  return device;
}

}  // namespace

std::string GpuDescription::arch() const { return fmt::format("sm_{}{}", cc_major, cc_minor); }

std::string GpuDescription::slug() const {
  std::string slug;
  bool pending_dash = false;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      if (pending_dash && !slug.empty()) slug += '-';
      pending_dash = false;
      slug += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      pending_dash = true;  // a run of separators becomes one '-', never leading or trailing
    }
  }
  return slug;
}

std::string GpuDescription::summary() const {
  constexpr double mib = 1024.0 * 1024.0, gib = mib * 1024.0;
  std::string memory = fmt::format("{:.0f} GiB", static_cast<double>(total_memory_bytes) / gib);
  if (memory_bus_bits > 0 && memory_clock_khz > 0) {
    memory += fmt::format(", {}-bit @ {} MHz", memory_bus_bits, memory_clock_khz / 1000);
  }
  return fmt::format("{} ({}, {} SMs, {:.0f} MiB L2, {}; driver {}, NVRTC {})", name, arch(), sm_count,
                     static_cast<double>(l2_bytes) / mib, memory, cuda_version_text(driver_version), nvrtc_version);
}

GpuDescription describe_gpu(int ordinal) {
  const CudaDriver& driver = cuda_driver();
  const CUdevice device = device_at(ordinal);

  GpuDescription gpu;
  char name[256] = {};
  check(driver.cuDeviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
  gpu.name = name;
  gpu.cc_major = required_attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability major");
  gpu.cc_minor = required_attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability minor");
  gpu.sm_count = required_attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "multiprocessor count");
  gpu.l2_bytes = required_attribute(device, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2 cache size");
  gpu.memory_clock_khz = optional_attribute(device, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  gpu.memory_bus_bits = optional_attribute(device, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  gpu.sm_clock_khz = optional_attribute(device, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  gpu.pci_bus_id = fmt::format("{:08x}:{:02x}:{:02x}.0", optional_attribute(device, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
                               optional_attribute(device, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
                               optional_attribute(device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID));
  std::size_t total_memory = 0;
  check(driver.cuDeviceTotalMem(&total_memory, device), "cuDeviceTotalMem");
  gpu.total_memory_bytes = static_cast<long long>(total_memory);
  gpu.driver_version = driver.driver_version;
  // A GPU is described where no NVRTC is found too: only what compiles needs
  // one, and it says why when there is none.
  try {
    gpu.nvrtc_version = nvrtc_version();
  } catch (const error&) {
    gpu.nvrtc_version = "none";
  }
  return gpu;
}

}  // namespace exactune
