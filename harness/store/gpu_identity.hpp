// The GPU a committed file speaks of, as sweep.yaml (`gpu:`) and heuristics.yaml
// (`device:`) both name it: its name, its reports folder's slug, and an
// architecture that names a compute capability (the generated select() compares
// them). One reader for both files, so that they accept the same GPUs.
#pragma once
#include <string>

#include "util/strict_yaml.hpp"

namespace exactune {

struct GpuIdentity {
  std::string name;  // "NVIDIA H200"
  std::string slug;  // "nvidia-h200"
  std::string arch;  // "sm_90"
};

// Reads the keys name, slug and arch of `fields`: each non-empty, the arch one
// compute_capability() takes. Throws exactune::input_error "<file>:<line>: ..."
GpuIdentity read_gpu_identity(const strict_yaml::Fields& fields);

}  // namespace exactune
