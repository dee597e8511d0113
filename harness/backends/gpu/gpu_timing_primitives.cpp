#include "backends/gpu/gpu_timing_primitives.hpp"

#include <memory>
#include <utility>

#include <exactune/error.hpp>

#include "backends/gpu/cuda_driver.hpp"

namespace exactune {

GpuEvent::GpuEvent(const GpuBackend& backend) {
  backend.make_current();
  CUevent event = nullptr;
  check(cuda_driver().cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate");
  event_ = {backend, event, "cuEventDestroy"};
}

void GpuEvent::record() {
  event_.backend().make_current();
  check(cuda_driver().cuEventRecord(event_.get(), event_.backend().stream()), "cuEventRecord");
}

void GpuEvent::synchronize() const {
  event_.backend().make_current();
  check(cuda_driver().cuEventSynchronize(event_.get()), "cuEventSynchronize");
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

GpuGraph::GpuGraph(const GpuBackend& backend, const std::function<void()>& enqueue) {
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
  CUgraphExec executable = nullptr;
  check(driver.cuGraphInstantiate(&executable, graph.get(), 0), "cuGraphInstantiate");
  executable_ = {backend, executable, "cuGraphExecDestroy"};
}

void GpuGraph::launch(int times) {
  executable_.backend().make_current();
  const CudaDriver& driver = cuda_driver();
  for (int i = 0; i < times; ++i)
    check(driver.cuGraphLaunch(executable_.get(), executable_.backend().stream()), "cuGraphLaunch");
}

}  // namespace exactune
