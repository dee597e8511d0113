// The GPU's SM clock, read where the timer ends a figure (nvbench's throttling
// check: a figure measured below 75% of the default clock is flagged). Read
// through NVML, the driver's own library, opened at run time
// (libnvidia-ml.so.1): nothing links it, and where it is missing, or cannot
// find the GPU, nothing is read and nothing fails. The default clock is the
// device's typical SM clock (CU_DEVICE_ATTRIBUTE_CLOCK_RATE).
#pragma once
#include <optional>
#include <string>

namespace exactune {

class SmClock {
 public:
  // The GPU NVML names by `pci_bus_id` ("domain:bus:device.function"), else
  // the only GPU NVML sees; `library`, NVML's file name (a test names one
  // that is not there). Never throws.
  SmClock(const std::string& pci_bus_id, int default_khz, const char* library = "libnvidia-ml.so.1");

  // The SM clock now, in MHz; none where NVML cannot say.
  std::optional<int> read_mhz() const;
  // The device's typical SM clock, in MHz; none where the driver does not report it.
  std::optional<int> default_mhz() const;
  // Why no clock can be read ("" when one can): for logs.
  const std::string& unavailable_because() const { return why_not_; }

 private:
  using ClockInfo = int (*)(void* device, int clock_type, unsigned* mhz);
  ClockInfo clock_info_ = nullptr;
  void* device_ = nullptr;
  int default_khz_ = 0;
  std::string why_not_;
};

}  // namespace exactune
