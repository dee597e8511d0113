#include "util/gpu_arch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include <exactune/error.hpp>

namespace exactune {

ComputeCapability compute_capability(std::string_view arch) {
  // sm_XY[Z][suffix]: the last digit is the minor version, the others the major.
  const std::string_view digits = arch.substr(std::min<std::size_t>(3, arch.size()));
  int number = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  const std::size_t count = static_cast<std::size_t>(end - digits.data());
  const bool suffix_ok =
      count == digits.size() || (count + 1 == digits.size() && std::islower(static_cast<unsigned char>(digits.back())));
  if (!arch.starts_with("sm_") || ec != std::errc() || count < 2 || count > 3 || !suffix_ok) {
    throw error(fmt::format("'{}' is no GPU architecture such as sm_80, sm_90 or sm_100a", arch));
  }
  return {number / 10, number % 10};
}

}  // namespace exactune
