// The two CUDA tools the timer measures with, owned RAII-style: events that
// timestamp the backend's stream, and graphs that replay captured launches
// without per-launch CPU overhead (the figure that graph-captured serving sees).
// Both must not outlive the GpuBackend they were made from; a moved-from one
// may only be destroyed or assigned to.
#pragma once
#include <cuda.h>

#include <functional>
#include <utility>

#include "backends/gpu/cuda_driver.hpp"
#include "backends/gpu/gpu_backend.hpp"

namespace exactune {

// A driver object of one backend's context (an event, a graph's executable):
// moved, never copied, and destroyed by `Destroy` (a CudaDriver entry point)
// with that context current; a failed destroy is reported, never thrown.
template <typename Handle, auto CudaDriver::*Destroy>
class ContextOwned {
 public:
  ContextOwned() = default;
  ContextOwned(const GpuBackend& backend, Handle handle, const char* destroy_name)
      : backend_(&backend), handle_(handle), destroy_name_(destroy_name) {}
  ~ContextOwned() { reset(); }
  ContextOwned(ContextOwned&& other) noexcept
      : backend_(std::exchange(other.backend_, nullptr)),
        handle_(std::exchange(other.handle_, nullptr)),
        destroy_name_(other.destroy_name_) {}
  ContextOwned& operator=(ContextOwned&& other) noexcept {
    if (this != &other) {
      reset();
      backend_ = std::exchange(other.backend_, nullptr);
      handle_ = std::exchange(other.handle_, nullptr);
      destroy_name_ = other.destroy_name_;
    }
    return *this;
  }
  ContextOwned(const ContextOwned&) = delete;
  ContextOwned& operator=(const ContextOwned&) = delete;

  const GpuBackend& backend() const { return *backend_; }
  Handle get() const { return handle_; }

 private:
  void reset() noexcept {
    if (!handle_) return;
    const CudaDriver& driver = cuda_driver();
    report_cleanup_failure(driver.cuCtxSetCurrent(backend_->context()), "cuCtxSetCurrent");
    report_cleanup_failure((driver.*Destroy)(handle_), destroy_name_);
    handle_ = nullptr;
  }

  const GpuBackend* backend_ = nullptr;
  Handle handle_ = nullptr;
  const char* destroy_name_ = "";
};

class GpuEvent {
 public:
  explicit GpuEvent(const GpuBackend& backend);  // timing enabled

  void record();             // on the backend's stream, after what is queued there
  void synchronize() const;  // waits until the recorded point has been reached
  CUevent get() const { return event_.get(); }

 private:
  ContextOwned<CUevent, &CudaDriver::cuEventDestroy> event_;
};

// Milliseconds on the GPU between two recorded events; waits for `end`.
float elapsed_ms(const GpuEvent& start, const GpuEvent& end);

class GpuGraph {
 public:
  // Calls `enqueue` while the backend's stream is being captured: what it
  // queues there (backend.launch, backend.fill) is recorded, not run, and the
  // recording is instantiated. `enqueue` must not synchronise or copy to or
  // from the host (that invalidates the capture and throws here).
  GpuGraph(const GpuBackend& backend, const std::function<void()>& enqueue);

  // Queues `times` replays on the backend's stream; returns without waiting.
  void launch(int times = 1);

 private:
  ContextOwned<CUgraphExec, &CudaDriver::cuGraphExecDestroy> executable_;
};

}  // namespace exactune
