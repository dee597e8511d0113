// One GPU backend for the whole GPU suite: each one costs a context creation.
// No test leaves a sticky error behind (the failures provoked are rejected launches).
#pragma once
#include <memory>

#include "backends/gpu/gpu_backend.hpp"

namespace exactune {

inline GpuBackend& shared_gpu() {
  static const std::unique_ptr<GpuBackend> backend = open_gpu_backend(0);
  return *backend;
}

}  // namespace exactune
