// Where kernels run. The verifier and timer are written once against this
// interface; a GPU backend drives the CUDA driver, a CPU backend executes the
// same kernel templates on host threads (harness/host_exec).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <exactune/compiled_kernel.hpp>

namespace exactune {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

struct LaunchGeometry {
  Dim3 grid;
  Dim3 block;
  unsigned dynamic_shared_bytes = 0;
};

// A device address: a CUdeviceptr on a GPU, a host pointer on the CPU backend.
using DeviceAddress = std::uint64_t;

class LoadedKernel {
 public:
  virtual ~LoadedKernel() = default;
  virtual const std::string& name() const = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string description() const = 0;  // e.g. "NVIDIA H200 (sm_90, 132 SMs)"
  virtual std::string target() const = 0;       // what to compile for: "sm_90", "host"

  virtual DeviceAddress allocate(std::size_t bytes) = 0;
  virtual void release(DeviceAddress address) noexcept = 0;
  virtual void upload(DeviceAddress dst, const void* src, std::size_t bytes) = 0;
  virtual void download(void* dst, DeviceAddress src, std::size_t bytes) = 0;
  virtual void fill(DeviceAddress dst, std::uint8_t byte, std::size_t bytes) = 0;

  virtual std::unique_ptr<LoadedKernel> load(const CompiledKernel& kernel) = 0;
  // args as cuLaunchKernel takes them: one pointer to each parameter's value.
  virtual void launch(const LoadedKernel& kernel, const LaunchGeometry& geometry, void** args) = 0;
  // How many CTAs of `kernel`, in blocks of block_threads, the device runs at
  // once (at least 1): the grid a persistent kernel launches.
  virtual unsigned resident_ctas(const LoadedKernel& kernel, unsigned block_threads) = 0;
  virtual void synchronize() = 0;
};

// Launches `kernel` with its parameters' values in order, as cuLaunchKernel
// takes them (no dynamic shared memory).
template <class... T>
void launch_kernel(Backend& backend, const LoadedKernel& kernel, Dim3 grid, Dim3 block, T... values) {
  void* args[] = {static_cast<void*>(&values)...};
  backend.launch(kernel, LaunchGeometry{grid, block, 0}, args);
}

// A buffer that gives its memory back when it goes out of scope.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Backend& backend, std::size_t bytes)
      : backend_(&backend), address_(backend.allocate(bytes)), bytes_(bytes) {}
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    reset();
    backend_ = other.backend_;
    address_ = other.address_;
    bytes_ = other.bytes_;
    other.backend_ = nullptr;
    other.address_ = 0;
    other.bytes_ = 0;
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { reset(); }

  DeviceAddress address() const { return address_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void reset() noexcept {
    if (backend_ && address_) backend_->release(address_);
    backend_ = nullptr;
    address_ = 0;
  }
  Backend* backend_ = nullptr;
  DeviceAddress address_ = 0;
  std::size_t bytes_ = 0;
};

}  // namespace exactune
