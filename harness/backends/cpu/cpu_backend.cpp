#include "backends/cpu/cpu_backend.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <exactune/error.hpp>

#include "compile/host/host_launcher.hpp"

namespace exactune {

namespace {

constexpr std::size_t kAlignment = 256;  // what cudaMalloc guarantees, at least

void* pointer(DeviceAddress address) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address)); }

class HostLoadedKernel : public LoadedKernel {
 public:
  HostLoadedKernel(std::string name, std::shared_ptr<void> library, host_exec::HostLauncher launcher)
      : name_(std::move(name)), library_(std::move(library)), launcher_(launcher) {}
  const std::string& name() const override { return name_; }
  host_exec::HostLauncher launcher() const { return launcher_; }

 private:
  std::string name_;
  std::shared_ptr<void> library_;  // keeps the launcher's code mapped
  host_exec::HostLauncher launcher_;
};

}  // namespace

CpuBackend::CpuBackend(unsigned threads)
    : threads_(threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency())) {}

std::string CpuBackend::description() const {
  return fmt::format("CPU ({} threads), rstd host-approximated", threads_);
}

DeviceAddress CpuBackend::allocate(std::size_t bytes) {
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
  void* memory = std::aligned_alloc(kAlignment, rounded);
  if (memory == nullptr) throw error(fmt::format("cannot allocate {} bytes of host memory", bytes));
  return static_cast<DeviceAddress>(reinterpret_cast<std::uintptr_t>(memory));
}

void CpuBackend::release(DeviceAddress address) noexcept { std::free(pointer(address)); }

void CpuBackend::upload(DeviceAddress dst, const void* src, std::size_t bytes) {
  std::memcpy(pointer(dst), src, bytes);
}

void CpuBackend::download(void* dst, DeviceAddress src, std::size_t bytes) { std::memcpy(dst, pointer(src), bytes); }

void CpuBackend::fill(DeviceAddress dst, std::uint8_t byte, std::size_t bytes) {
  std::memset(pointer(dst), byte, bytes);
}

std::shared_ptr<void> CpuBackend::open_library(const Binary& binary) {
  std::lock_guard<std::mutex> lock(libraries_mutex_);
  if (auto found = libraries_.find(binary.id); found != libraries_.end()) return found->second;
  // RTLD_LOCAL: every library has launchers and a runtime of its own.
  void* handle = dlopen(binary.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    throw error(fmt::format("cannot load the host kernel library {}: {}", binary.path, dlerror()));
  }
  std::shared_ptr<void> library(handle, [](void* h) { dlclose(h); });
  libraries_.emplace(binary.id, library);
  return library;
}

std::unique_ptr<LoadedKernel> CpuBackend::load(const CompiledKernel& kernel) {
  if (kernel.target != kHostTarget) {
    throw error(fmt::format("kernel {} was compiled for '{}', the CPU backend runs 'host' kernels", kernel.name,
                            kernel.target));
  }
  if (kernel.binary_path().empty()) throw error(fmt::format("kernel {} has no host library path", kernel.name));
  std::shared_ptr<void> library = open_library(*kernel.binary);
  dlerror();
  void* symbol = dlsym(library.get(), kernel.entry.c_str());
  if (symbol == nullptr) {
    throw error(fmt::format("kernel {}: no launcher {} in {}", kernel.name, kernel.entry, kernel.binary->path));
  }
  return std::make_unique<HostLoadedKernel>(kernel.name, std::move(library),
                                            reinterpret_cast<host_exec::HostLauncher>(symbol));
}

void CpuBackend::launch(const LoadedKernel& kernel, const LaunchGeometry& geometry, void** args) {
  const auto* host_kernel = dynamic_cast<const HostLoadedKernel*>(&kernel);
  if (host_kernel == nullptr) throw error(fmt::format("kernel {} was not loaded by the CPU backend", kernel.name()));
  // geometry.dynamic_shared_bytes needs nothing here: a template that takes
  // dynamic shared memory on the GPU declares, for the host compiler, a
  // __shared__ array of the size it needs (host_cuda.hpp).
  const unsigned grid[3] = {geometry.grid.x, geometry.grid.y, geometry.grid.z};
  const unsigned block[3] = {geometry.block.x, geometry.block.y, geometry.block.z};
  if (const char* message = host_kernel->launcher()(grid, block, args, threads_)) {
    throw error(fmt::format("kernel {} failed on the CPU: {}", kernel.name(), message));
  }
}

}  // namespace exactune
