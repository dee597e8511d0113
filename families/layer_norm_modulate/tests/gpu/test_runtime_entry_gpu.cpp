// The runtime's C entry on a GPU, without torch: the tables' variant launched
// on the caller's stream gives the reference's bits (tuned sizes, an untuned
// one that needs the narrowed default, one token); calls from several threads
// on their own streams agree; a problem first seen during CUDA-graph capture is
// not served, and once seen it is captured and replayed exactly.
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "backends/gpu/cuda_driver.hpp"
#include "catch.hpp"
#include "layer_norm_modulate/capi/exactune_capi.h"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate/layer_norm_modulate_inputs.hpp"
#include "layer_norm_modulate/runtime/exactune_layer_norm_modulate.h"

namespace exactune {
namespace {

struct DeviceMemory {
  CUdeviceptr address = 0;
  explicit DeviceMemory(std::size_t bytes) { check(cuda_driver().cuMemAlloc(&address, bytes), "cuMemAlloc"); }
  ~DeviceMemory() { report_cleanup_failure(cuda_driver().cuMemFree(address), "cuMemFree"); }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
};

struct Stream {
  CUstream stream = nullptr;
  Stream() { check(cuda_driver().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"); }
  ~Stream() { report_cleanup_failure(cuda_driver().cuStreamDestroy(stream), "cuStreamDestroy"); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

// One problem's inputs on the device and its reference output on the host.
struct Problem {
  Shape shape;
  ModulateProblem m;
  ModulateInputs in;
  std::vector<std::uint16_t> reference;
  DeviceMemory x, embedding;

  Problem(int batch, int tokens, int hidden)
      : shape(modulate_shape("runtime", batch, tokens, hidden, 1e-6, 6)),
        m(ModulateProblem::of(shape)),
        in(make_modulate_inputs(shape, modulate_cases(ModulateProblem::of(shape).eps).front(), 7)),
        reference(in.x.size()),
        x(in.x.size() * 2),
        embedding(in.embedding.size() * 2) {
    const exactune_problem p{in.x.data(),
                             in.embedding.data(),
                             static_cast<int64_t>(in.embedding.size()),
                             in.scale_offset,
                             in.shift_offset,
                             m.modulation_stride,
                             m.batch,
                             m.tokens,
                             m.hidden,
                             m.eps};
    INFO(exactune_last_error());
    REQUIRE(exactune_reference(&p, reference.data(), nullptr, nullptr, nullptr) == 0);
    check(cuda_driver().cuMemcpyHtoD(x.address, in.x.data(), in.x.size() * 2), "cuMemcpyHtoD");
    check(cuda_driver().cuMemcpyHtoD(embedding.address, in.embedding.data(), in.embedding.size() * 2), "cuMemcpyHtoD");
  }

  exactune_layer_norm_modulate_args args(const DeviceMemory& out, CUstream stream) const {
    exactune_layer_norm_modulate_args a{};
    a.stream = stream;
    a.x = reinterpret_cast<const void*>(x.address);
    a.scale = reinterpret_cast<const void*>(embedding.address + 2 * in.scale_offset);
    a.shift = reinterpret_cast<const void*>(embedding.address + 2 * in.shift_offset);
    a.out = reinterpret_cast<void*>(out.address);
    a.batch = m.batch;
    a.tokens = m.tokens;
    a.hidden = m.hidden;
    a.x_strides[0] = static_cast<int64_t>(m.tokens) * m.hidden;
    a.x_strides[1] = m.hidden;
    a.x_strides[2] = 1;
    a.scale_row_stride = a.shift_row_stride = m.modulation_stride;
    a.eps = m.eps;
    return a;
  }

  std::vector<std::uint16_t> download(const DeviceMemory& out) const {
    std::vector<std::uint16_t> host(reference.size());
    check(cuda_driver().cuMemcpyDtoH(host.data(), out.address, host.size() * 2), "cuMemcpyDtoH");
    return host;
  }
};

void use_device_zero() {
  const CudaDriver& driver = cuda_driver();
  CUdevice device = 0;
  CUcontext context = nullptr;
  check(driver.cuDeviceGet(&device, 0), "cuDeviceGet");
  check(driver.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

}  // namespace

TEST_CASE("the runtime launches the tables' variant on the caller's stream, bit-exact", "[gpu][runtime]") {
  use_device_zero();
  const struct {
    int batch, tokens, hidden;
  } problems[] = {{2, 1024, 2240}, {1, 37, 2240}, {2, 77, 2244}, {1, 1, 3072}, {1, 300, 4096}};
  for (const auto& [batch, tokens, hidden] : problems) {
    INFO(batch << " x " << tokens << " x " << hidden);
    const Problem p(batch, tokens, hidden);
    const DeviceMemory out(p.reference.size() * 2);
    const Stream stream;
    const exactune_layer_norm_modulate_args a = p.args(out, stream.stream);
    INFO(exactune_runtime_last_error());
    REQUIRE(exactune_layer_norm_modulate(&a) == EXACTUNE_OK);
    const std::string variant = exactune_layer_norm_modulate_last_variant();
    INFO(variant);
    CHECK(!variant.empty());
    if (hidden == 2244) CHECK(variant.find("_v8_") != std::string::npos);  // rows only 8-byte aligned
    check(cuda_driver().cuStreamSynchronize(stream.stream), "cuStreamSynchronize");
    CHECK(p.download(out) == p.reference);
  }
}

TEST_CASE("the runtime serves several threads at once, each on its own stream", "[gpu][runtime]") {
  use_device_zero();
  const Problem p(2, 1024, 2240);
  constexpr int kThreads = 4;
  std::vector<std::unique_ptr<DeviceMemory>> outs;
  for (int t = 0; t < kThreads; ++t) outs.push_back(std::make_unique<DeviceMemory>(p.reference.size() * 2));
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      use_device_zero();
      const Stream stream;
      const exactune_layer_norm_modulate_args a = p.args(*outs[t], stream.stream);
      for (int call = 0; call < 200; ++call) failures[t] += exactune_layer_norm_modulate(&a) != EXACTUNE_OK;
      failures[t] += cuda_driver().cuStreamSynchronize(stream.stream) != CUDA_SUCCESS;
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    CHECK(failures[t] == 0);
    CHECK(p.download(*outs[t]) == p.reference);
  }
}

TEST_CASE("a problem first seen during graph capture is not served, once seen, it is captured exactly",
          "[gpu][runtime]") {
  use_device_zero();
  const CudaDriver& driver = cuda_driver();
  const Problem p(2, 333, 3072);  // a row count no other test uses
  const DeviceMemory out(p.reference.size() * 2);
  const Stream stream;
  const exactune_layer_norm_modulate_args a = p.args(out, stream.stream);
  const auto capture = [&](int* status) {
    CUgraph graph = nullptr;
    check(driver.cuStreamBeginCapture(stream.stream, CU_STREAM_CAPTURE_MODE_GLOBAL), "cuStreamBeginCapture");
    *status = exactune_layer_norm_modulate(&a);
    check(driver.cuStreamEndCapture(stream.stream, &graph), "cuStreamEndCapture");
    return graph;
  };
  int status = -1;
  CUgraph empty = capture(&status);
  CHECK(status == EXACTUNE_NOT_SERVED);
  CHECK(std::string(exactune_runtime_last_error()).find("during CUDA-graph capture") != std::string::npos);
  check(driver.cuGraphDestroy(empty), "cuGraphDestroy");

  REQUIRE(exactune_layer_norm_modulate(&a) == EXACTUNE_OK);  // first sight, outside capture
  check(driver.cuStreamSynchronize(stream.stream), "cuStreamSynchronize");
  check(driver.cuMemsetD8(out.address, 0xff, p.reference.size() * 2), "cuMemsetD8");
  CUgraph graph = capture(&status);
  REQUIRE(status == EXACTUNE_OK);
  CUgraphExec exec = nullptr;
  check(driver.cuGraphInstantiate(&exec, graph, 0), "cuGraphInstantiate");
  check(driver.cuGraphLaunch(exec, stream.stream), "cuGraphLaunch");
  check(driver.cuStreamSynchronize(stream.stream), "cuStreamSynchronize");
  CHECK(p.download(out) == p.reference);
  check(driver.cuGraphExecDestroy(exec), "cuGraphExecDestroy");
  check(driver.cuGraphDestroy(graph), "cuGraphDestroy");
}

}  // namespace exactune
