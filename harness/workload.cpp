#include "workload.hpp"

#include <fmt/format.h>

#include "error.hpp"

namespace exactune {

void SupportKernels::add(std::string name, std::unique_ptr<LoadedKernel> kernel) {
  kernels_[std::move(name)] = std::move(kernel);
}

const LoadedKernel& SupportKernels::get(const std::string& name) const {
  const auto it = kernels_.find(name);
  if (it == kernels_.end()) throw error(fmt::format("support kernel '{}' was not loaded", name));
  return *it->second;
}

}  // namespace exactune
