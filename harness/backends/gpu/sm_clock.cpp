// The SM clock through NVML, opened at run time (sm_clock.hpp).
#include "backends/gpu/sm_clock.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

namespace exactune {

namespace {

// NVML's C ABI, the few entry points read here (nvml.h is not needed to build):
// every call returns 0 on success; a device is an opaque handle.
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM
using NvmlInit = int (*)();
using NvmlHandleByBusId = int (*)(const char* pci_bus_id, void** device);
using NvmlCount = int (*)(unsigned* count);
using NvmlHandleByIndex = int (*)(unsigned index, void** device);

template <class Function>
Function symbol(void* library, const char* name) {
  return reinterpret_cast<Function>(::dlsym(library, name));
}

}  // namespace

SmClock::SmClock(const std::string& pci_bus_id, int default_khz, const char* library) : default_khz_(default_khz) {
  // Opened once per reader and never closed: NVML keeps state for the process.
  void* nvml = ::dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!nvml) {
    why_not_ = fmt::format("no NVML ({} not loadable)", library);
    return;
  }
  const auto init = symbol<NvmlInit>(nvml, "nvmlInit_v2");
  const auto by_bus_id = symbol<NvmlHandleByBusId>(nvml, "nvmlDeviceGetHandleByPciBusId_v2");
  const auto count = symbol<NvmlCount>(nvml, "nvmlDeviceGetCount_v2");
  const auto by_index = symbol<NvmlHandleByIndex>(nvml, "nvmlDeviceGetHandleByIndex_v2");
  const auto clock_info = symbol<ClockInfo>(nvml, "nvmlDeviceGetClockInfo");
  if (!init || !by_bus_id || !count || !by_index || !clock_info) {
    why_not_ = fmt::format("{} lacks the entry points read here", library);
    return;
  }
  if (init() != kNvmlSuccess) {
    why_not_ = "nvmlInit failed";
    return;
  }
  void* device = nullptr;
  unsigned devices = 0;
  if (by_bus_id(pci_bus_id.c_str(), &device) != kNvmlSuccess) {
    // A machine of one GPU needs no bus id to name it.
    if (count(&devices) != kNvmlSuccess || devices != 1 || by_index(0, &device) != kNvmlSuccess) {
      why_not_ = fmt::format("NVML finds no GPU at PCI bus id {}", pci_bus_id);
      return;
    }
  }
  device_ = device;
  clock_info_ = clock_info;
}

std::optional<int> SmClock::read_mhz() const {
  unsigned mhz = 0;
  if (!clock_info_ || clock_info_(device_, kNvmlClockSm, &mhz) != kNvmlSuccess || mhz == 0) return std::nullopt;
  return static_cast<int>(mhz);
}

std::optional<int> SmClock::default_mhz() const {
  if (default_khz_ <= 0) return std::nullopt;
  return default_khz_ / 1000;
}

}  // namespace exactune
