#include "backends/gpu/gpu_timing_primitives.hpp"

#include <memory>
#include <utility>

#include "backends/gpu/cuda_driver.hpp"
#include <exactune/error.hpp>

namespace exactune {

GpuEvent::GpuEvent(const GpuBackend& backend) : backend_(&backend) {
  backend.make_current();
  check(cuda_driver().cuEventCreate(&event_, CU_EVENT_DEFAULT), "cuEventCreate");
}

GpuEvent::~GpuEvent() { reset(); }

GpuEvent::GpuEvent(GpuEvent&& other) noexcept
    : backend_(std::exchange(other.backend_, nullptr)), event_(std::exchange(other.event_, nullptr)) {}

GpuEvent& GpuEvent::operator=(GpuEvent&& other) noexcept {
  if (this != &other) {
    reset();
    backend_ = std::exchange(other.backend_, nullptr);
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

void GpuEvent::reset() noexcept {
  if (!event_) return;
  const CudaDriver& driver = cuda_driver();
  report_cleanup_failure(driver.cuCtxSetCurrent(backend_->context()), "cuCtxSetCurrent");
  report_cleanup_failure(driver.cuEventDestroy(event_), "cuEventDestroy");
  event_ = nullptr;
}

void GpuEvent::record() {
  backend_->make_current();
  check(cuda_driver().cuEventRecord(event_, backend_->stream()), "cuEventRecord");
}

void GpuEvent::synchronize() const {
  backend_->make_current();
  check(cuda_driver().cuEventSynchronize(event_), "cuEventSynchronize");
}

float elapsed_ms(const GpuEvent& start, const GpuEvent& end) {
  end.synchronize();
  float milliseconds = 0;
  check(cuda_driver().cuEventElapsedTime(&milliseconds, start.get(), end.get()), "cuEventElapsedTime");
  return milliseconds;
}

namespace {

struct DestroyGraph {
  void operator()(CUgraph graph) const noexcept {
    report_cleanup_failure(cuda_driver().cuGraphDestroy(graph), "cuGraphDestroy");
  }
};
using OwnedGraph = std::unique_ptr<CUgraph_st, DestroyGraph>;

// Ends the capture on `stream` whether or not it went well, so that the
// stream is usable again, and hands over what was recorded (null if nothing).
OwnedGraph end_capture(CUstream stream, CUresult& result) {
  CUgraph graph = nullptr;
  result = cuda_driver().cuStreamEndCapture(stream, &graph);
  return OwnedGraph(graph);
}

}  // namespace

GpuGraph::GpuGraph(const GpuBackend& backend, const std::function<void()>& enqueue) : backend_(&backend) {
  const CudaDriver& driver = cuda_driver();
  backend.make_current();
  const CUstream stream = backend.stream();
  // Thread-local: only calls from this thread can invalidate the capture, so
  // other threads (compile workers) need not know a capture is going on.
  check(driver.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
  CUresult ended = CUDA_SUCCESS;
  try {
    enqueue();
  } catch (...) {
    end_capture(stream, ended);  // the error that stopped `enqueue` is the one worth reporting
    throw;
  }
  const OwnedGraph graph = end_capture(stream, ended);
  check(ended, "cuStreamEndCapture (capturing a CUDA graph)");
  if (!graph) throw error("cuStreamEndCapture returned no graph");
  // The executable graph is independent of the recording, which goes now.
  check(driver.cuGraphInstantiate(&executable_, graph.get(), 0), "cuGraphInstantiate");
}

GpuGraph::~GpuGraph() { reset(); }

GpuGraph::GpuGraph(GpuGraph&& other) noexcept
    : backend_(std::exchange(other.backend_, nullptr)), executable_(std::exchange(other.executable_, nullptr)) {}

GpuGraph& GpuGraph::operator=(GpuGraph&& other) noexcept {
  if (this != &other) {
    reset();
    backend_ = std::exchange(other.backend_, nullptr);
    executable_ = std::exchange(other.executable_, nullptr);
  }
  return *this;
}

void GpuGraph::reset() noexcept {
  if (!executable_) return;
  const CudaDriver& driver = cuda_driver();
  report_cleanup_failure(driver.cuCtxSetCurrent(backend_->context()), "cuCtxSetCurrent");
  report_cleanup_failure(driver.cuGraphExecDestroy(executable_), "cuGraphExecDestroy");
  executable_ = nullptr;
}

void GpuGraph::launch(int times) {
  backend_->make_current();
  const CudaDriver& driver = cuda_driver();
  for (int i = 0; i < times; ++i) check(driver.cuGraphLaunch(executable_, backend_->stream()), "cuGraphLaunch");
}

}  // namespace exactune
