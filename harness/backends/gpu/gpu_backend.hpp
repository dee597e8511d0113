// The Backend on one GPU, through the driver API: the device's primary context
// and one non-blocking stream that every operation is ordered on.
//
// Operations are synchronous where a caller could tell: upload and download
// have completed when they return; fill and launch are queued on the stream,
// which is all that later operations through this backend can observe.
//
// A GpuBackend must outlive everything it made: buffers, loaded kernels,
// events and graphs (declare it first). Any thread may call it: each operation
// makes the context current on the calling thread first.
#pragma once
#include <cuda.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <exactune/backend.hpp>

#include "backends/gpu/device_info.hpp"

namespace exactune {

class GpuBackend : public Backend {
 public:
  explicit GpuBackend(int ordinal);  // throws exactune::error
  ~GpuBackend() override;
  GpuBackend(const GpuBackend&) = delete;
  GpuBackend& operator=(const GpuBackend&) = delete;

  std::string description() const override;  // "NVIDIA H200 (sm_90, 132 SMs)"
  std::string target() const override;       // "sm_90"

  DeviceAddress allocate(std::size_t bytes) override;  // 0 bytes: address 0, nothing allocated
  void release(DeviceAddress address) noexcept override;
  void upload(DeviceAddress dst, const void* src, std::size_t bytes) override;
  void download(void* dst, DeviceAddress src, std::size_t bytes) override;
  void fill(DeviceAddress dst, std::uint8_t byte, std::size_t bytes) override;

  // The binary must be a cubin (or PTX) for this GPU; the kernel's entry is
  // the lowered name of its __global__ function. Kernels with the same binary
  // (one NVRTC batch's cubin, one Binary with one id) share one loaded module.
  std::unique_ptr<LoadedKernel> load(const CompiledKernel& kernel) override;
  // Raises the kernel's dynamic shared memory limit when the geometry asks for
  // more than it allows (above 48 KiB needs an explicit opt-in).
  void launch(const LoadedKernel& kernel, const LaunchGeometry& geometry, void** args) override;
  // The occupancy calculator's CTAs per multiprocessor, times the multiprocessors.
  unsigned resident_ctas(const LoadedKernel& kernel, unsigned block_threads) override;
  void synchronize() override;
  // "" while the context can run kernels; else the driver's sticky error (a
  // trap, an illegal address), after which nothing in this process can.
  std::string context_error() const;

  // For the timing stage (gpu_timing_primitives.hpp).
  const GpuDescription& gpu() const { return gpu_; }
  CUstream stream() const { return stream_.get(); }
  CUcontext context() const { return context_.get(); }
  void make_current() const;  // this backend's context, on the calling thread

 private:
  struct ReleasePrimaryContext {
    CUdevice device;
    void operator()(CUcontext context) const noexcept;
  };
  struct DestroyStream {
    void operator()(CUstream stream) const noexcept;
  };
  // Names the last kernel launched, so that an asynchronous fault reported by a
  // later synchronisation points at its likely culprit.
  std::string after_last_launch() const;
  // The module of the kernel's binary: loaded once while any kernel of it lives.
  std::shared_ptr<CUmod_st> module_of(const CompiledKernel& kernel);

  GpuDescription gpu_;
  std::unique_ptr<CUctx_st, ReleasePrimaryContext> context_;
  std::unique_ptr<CUstream_st, DestroyStream> stream_;  // destroyed before the context
  std::string last_launched_kernel_;
  std::mutex modules_mutex_;
  std::map<std::string, std::weak_ptr<CUmod_st>> modules_;  // by the binary's id (its content hash)
};

// Throws exactune::error carrying why_no_gpu()'s reason when there is no usable GPU.
std::unique_ptr<GpuBackend> open_gpu_backend(int ordinal = 0);

}  // namespace exactune
