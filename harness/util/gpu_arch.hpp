// GPU architectures as exactune spells them ("sm_90", "sm_100a"): what the
// compile targets, the device records of sweep.yaml and heuristics.yaml, and the
// generated select() (which compares compute capabilities) all read.
#pragma once
#include <string_view>

namespace exactune {

struct ComputeCapability {
  int major = 0;
  int minor = 0;
};
// "sm_90" -> 9.0, "sm_100a" -> 10.0; throws exactune::error on anything else.
ComputeCapability compute_capability(std::string_view arch);

}  // namespace exactune
