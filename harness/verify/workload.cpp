#include <fmt/format.h>

#include <exactune/error.hpp>
#include <exactune/workload.hpp>

namespace exactune {

void SupportKernels::add(std::string name, std::unique_ptr<LoadedKernel> kernel) {
  kernels_[std::move(name)] = std::move(kernel);
}

const LoadedKernel& SupportKernels::get(const std::string& name) const {
  const auto it = kernels_.find(name);
  if (it == kernels_.end()) throw error(fmt::format("support kernel '{}' was not loaded", name));
  return *it->second;
}

std::size_t padded_bytes(std::int64_t elements, std::size_t element_size) {
  return (static_cast<std::size_t>(elements) * element_size + 15) / 16 * 16;
}

void require_aligned(DeviceAddress address, unsigned bytes, const std::string& what, const std::string& why) {
  if (address % bytes != 0) {
    throw input_error(fmt::format("{} at 0x{:x} is not {}-byte aligned: {}", what, address, bytes, why));
  }
}

}  // namespace exactune
