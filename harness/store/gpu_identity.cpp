#include "store/gpu_identity.hpp"

#include <exactune/error.hpp>

#include "util/gpu_arch.hpp"

namespace exactune {

GpuIdentity read_gpu_identity(const strict_yaml::Fields& fields) {
  GpuIdentity gpu;
  gpu.name = fields["name"].nonempty_text();
  gpu.slug = fields["slug"].nonempty_text();
  const strict_yaml::Value arch = fields["arch"];
  gpu.arch = arch.nonempty_text();
  try {
    compute_capability(gpu.arch);
  } catch (const error& e) {
    arch.source().fail(arch.line(), "arch: {}", e.what());
  }
  return gpu;
}

}  // namespace exactune
