// DeadlinePolicy (steps.hpp): the allowance plus a multiple of the copy roofline.
#include <cmath>

#include "supervise/steps.hpp"

namespace exactune {

std::chrono::milliseconds DeadlinePolicy::for_bytes(double bytes) const {
  double seconds = allowance.count();
  if (bytes_per_second > 0) seconds += roofline_factor * bytes / bytes_per_second;
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(seconds * 1000)));
}

}  // namespace exactune
