// The two CUDA tools the timer measures with, owned RAII-style: events that
// timestamp the backend's stream, and graphs that replay captured launches
// without per-launch CPU overhead (the figure that graph-captured serving sees).
// Both must not outlive the GpuBackend they were made from; a moved-from one
// may only be destroyed or assigned to.
#pragma once
#include <cuda.h>

#include <functional>

#include "backends/gpu/gpu_backend.hpp"

namespace exactune {

class GpuEvent {
 public:
  explicit GpuEvent(const GpuBackend& backend);  // timing enabled
  ~GpuEvent();
  GpuEvent(GpuEvent&& other) noexcept;
  GpuEvent& operator=(GpuEvent&& other) noexcept;
  GpuEvent(const GpuEvent&) = delete;
  GpuEvent& operator=(const GpuEvent&) = delete;

  void record();            // on the backend's stream, after what is queued there
  void synchronize() const;  // waits until the recorded point has been reached
  CUevent get() const { return event_; }

 private:
  void reset() noexcept;
  const GpuBackend* backend_ = nullptr;
  CUevent event_ = nullptr;
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
  ~GpuGraph();
  GpuGraph(GpuGraph&& other) noexcept;
  GpuGraph& operator=(GpuGraph&& other) noexcept;
  GpuGraph(const GpuGraph&) = delete;
  GpuGraph& operator=(const GpuGraph&) = delete;

  // Queues `times` replays on the backend's stream; returns without waiting.
  void launch(int times = 1);

 private:
  void reset() noexcept;
  const GpuBackend* backend_ = nullptr;
  CUgraphExec executable_ = nullptr;
};

}  // namespace exactune
