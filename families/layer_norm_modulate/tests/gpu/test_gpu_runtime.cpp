// The GPU runtime on a real device: what describe_gpu reports, memory round
// trips, kernels compiled here with NVRTC and launched through GpuBackend,
// errors that name their kernel, and the timing primitives (events, graphs).
#include <nvrtc.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <exactune/error.hpp>

#include "backends/gpu/cuda_driver.hpp"
#include "backends/gpu/device_info.hpp"
#include "backends/gpu/gpu_backend.hpp"
#include "backends/gpu/gpu_timing_primitives.hpp"
#include "catch.hpp"
#include "compile/compiler.hpp"
#include "compile/nvrtc_library.hpp"
#include "support/shared_gpu.hpp"

namespace exactune {
namespace {

GpuBackend& gpu() { return shared_gpu(); }

// extern "C" keeps the entry names unmangled, so no name expressions are needed.
constexpr const char* kTestKernelSource = R"(
extern "C" __global__ void add_one(unsigned int* counter) { atomicAdd(counter, 1u); }

extern "C" __global__ void write_index(unsigned int* out, unsigned int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3u * i + 1u;
}

// Reverses one block's indices through dynamic shared memory.
extern "C" __global__ void reverse_through_shared(unsigned int* out) {
  extern __shared__ unsigned int staged[];
  staged[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = staged[blockDim.x - 1 - threadIdx.x];
}
)";

std::string compile_test_cubin() {
  nvrtcProgram program = nullptr;
  REQUIRE(nvrtc().nvrtcCreateProgram(&program, kTestKernelSource, "test_kernels.cu", 0, nullptr, nullptr) ==
          NVRTC_SUCCESS);
  const std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> owned(
      &program, [](nvrtcProgram* p) { nvrtc().nvrtcDestroyProgram(p); });
  const std::string arch = "-arch=" + gpu().target();  // a real architecture, so NVRTC emits a cubin
  const char* options[] = {arch.c_str()};
  if (nvrtc().nvrtcCompileProgram(program, 1, options) != NVRTC_SUCCESS) {
    std::size_t log_size = 0;
    nvrtc().nvrtcGetProgramLogSize(program, &log_size);
    std::string log(log_size, '\0');
    nvrtc().nvrtcGetProgramLog(program, log.data());
    FAIL("NVRTC could not compile the test kernels: " << log);
  }
  std::size_t size = 0;
  REQUIRE(nvrtc().nvrtcGetCUBINSize(program, &size) == NVRTC_SUCCESS);
  std::string cubin(size, '\0');
  REQUIRE(nvrtc().nvrtcGetCUBIN(program, cubin.data()) == NVRTC_SUCCESS);
  return cubin;
}

CompiledKernel test_kernel(const std::string& entry) {
  static const std::shared_ptr<const Binary> cubin = binary_in_memory(compile_test_cubin());
  CompiledKernel kernel;
  kernel.name = "test_" + entry;
  kernel.target = gpu().target();
  kernel.entry = entry;
  kernel.binary = cubin;
  return kernel;
}

std::vector<unsigned> download_words(const DeviceBuffer& buffer) {
  std::vector<unsigned> words(buffer.bytes() / sizeof(unsigned));
  gpu().download(words.data(), buffer.address(), words.size() * sizeof(unsigned));
  return words;
}

// The message of the exactune::error that `action` throws; fails the test if none.
std::string error_message(const std::function<void()>& action) {
  try {
    action();
  } catch (const error& e) {
    return e.what();
  }
  FAIL("expected an exactune::error");
  return {};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_CASE("describe_gpu reports a plausible GPU", "[gpu]") {
  const GpuDescription gpu0 = describe_gpu(0);
  CHECK_FALSE(gpu0.name.empty());
  CHECK(gpu0.cc_major >= 7);  // NVRTC 12+ targets Volta and newer
  CHECK(gpu0.sm_count > 0);
  CHECK(gpu0.l2_bytes >= (1LL << 20));
  CHECK(gpu0.total_memory_bytes >= (1LL << 30));
  CHECK(gpu0.driver_version >= 12000);
  CHECK_FALSE(gpu0.nvrtc_version.empty());
  CHECK(gpu0.arch() == "sm_" + std::to_string(gpu0.cc_major) + std::to_string(gpu0.cc_minor));
  CHECK(gpu0.slug().find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos);
  CHECK(contains(gpu0.summary(), gpu0.name));
  CHECK(contains(gpu0.summary(), gpu0.arch()));
  CHECK(gpu().target() == gpu0.arch());
  CHECK(contains(error_message([] { describe_gpu(1000); }), "no GPU 1000"));
}

TEST_CASE("memory round-trips through allocate, fill, upload and download", "[gpu]") {
  constexpr std::size_t bytes = (1 << 20) + 13;  // not a multiple of anything convenient
  DeviceBuffer buffer(gpu(), bytes);
  REQUIRE(buffer.address() != 0);
  std::vector<std::uint8_t> host(bytes);

  gpu().fill(buffer.address(), 0xAB, bytes);
  gpu().download(host.data(), buffer.address(), bytes);
  CHECK(std::count(host.begin(), host.end(), 0xAB) == static_cast<std::ptrdiff_t>(bytes));

  for (std::size_t i = 0; i < bytes; ++i) host[i] = static_cast<std::uint8_t>(i * 7 + 3);
  gpu().upload(buffer.address(), host.data(), bytes);
  std::vector<std::uint8_t> back(bytes);
  gpu().download(back.data(), buffer.address(), bytes);
  CHECK(back == host);

  // A fill at an offset touches exactly its range.
  constexpr std::size_t offset = 1001, length = 4096;
  gpu().fill(buffer.address() + offset, 0x00, length);
  gpu().download(back.data(), buffer.address(), bytes);
  for (std::size_t i = offset; i < offset + length; ++i) host[i] = 0;
  CHECK(back == host);

  CHECK(gpu().allocate(0) == 0);
}

TEST_CASE("a kernel compiled with NVRTC runs through the backend", "[gpu]") {
  const std::unique_ptr<LoadedKernel> kernel = gpu().load(test_kernel("write_index"));
  CHECK(kernel->name() == "test_write_index");
  constexpr unsigned n = 1000, padding = 24;
  DeviceBuffer out(gpu(), (n + padding) * sizeof(unsigned));
  gpu().fill(out.address(), 0xFF, out.bytes());  // poison, so that an unwritten element shows

  DeviceAddress out_address = out.address();
  unsigned count = n;
  void* args[] = {&out_address, &count};
  gpu().launch(*kernel, LaunchGeometry{{(n + 127) / 128}, {128}}, args);
  gpu().synchronize();

  const std::vector<unsigned> words = download_words(out);
  for (unsigned i = 0; i < n; ++i) REQUIRE(words[i] == 3 * i + 1);
  for (unsigned i = n; i < n + padding; ++i) REQUIRE(words[i] == 0xFFFFFFFFu);
}

TEST_CASE("dynamic shared memory above 48 KiB is opted into on launch", "[gpu]") {
  int opt_in_limit = 0;
  CUdevice device = 0;
  check(cuda_driver().cuDeviceGet(&device, 0), "cuDeviceGet");
  check(
      cuda_driver().cuDeviceGetAttribute(&opt_in_limit, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device),
      "cuDeviceGetAttribute");
  constexpr unsigned shared_bytes = 64 * 1024;
  // Every GPU exactune serves (sm_80 on) can: 163 KiB on an A100, 227 KiB on an H100 or H200.
  REQUIRE(opt_in_limit >= static_cast<int>(shared_bytes));
  const std::unique_ptr<LoadedKernel> kernel = gpu().load(test_kernel("reverse_through_shared"));
  constexpr unsigned threads = 256;
  DeviceBuffer out(gpu(), threads * sizeof(unsigned));
  DeviceAddress out_address = out.address();
  void* args[] = {&out_address};
  gpu().launch(*kernel, LaunchGeometry{{1}, {threads}, shared_bytes}, args);
  gpu().synchronize();
  const std::vector<unsigned> words = download_words(out);
  for (unsigned i = 0; i < threads; ++i) REQUIRE(words[i] == threads - 1 - i);
}

TEST_CASE("failures name the kernel and leave the backend usable", "[gpu]") {
  const std::unique_ptr<LoadedKernel> kernel = gpu().load(test_kernel("add_one"));
  DeviceBuffer counter(gpu(), sizeof(unsigned));
  gpu().fill(counter.address(), 0, counter.bytes());
  DeviceAddress counter_address = counter.address();
  void* args[] = {&counter_address};

  SECTION("a block larger than any GPU allows") {
    const std::string message = error_message([&] { gpu().launch(*kernel, LaunchGeometry{{1}, {4096}}, args); });
    CHECK(contains(message, "test_add_one"));
    CHECK(contains(message, "4096x1x1"));
    CHECK(contains(message, "CUDA_ERROR_"));  // INVALID_VALUE, as far as the documentation says
  }
  SECTION("an empty grid") {
    const std::string message = error_message([&] { gpu().launch(*kernel, LaunchGeometry{{0}, {32}}, args); });
    CHECK(contains(message, "test_add_one"));
  }
  SECTION("a binary that is not one") {
    CompiledKernel garbage = test_kernel("add_one");
    garbage.name = "test_garbage";
    garbage.binary = binary_in_memory(std::string(64, 'x'));
    CHECK(contains(error_message([&] { gpu().load(garbage); }), "test_garbage"));
  }
  SECTION("an entry point the binary lacks") {
    CompiledKernel missing = test_kernel("no_such_kernel");
    missing.name = "test_missing_entry";
    const std::string message = error_message([&] { gpu().load(missing); });
    CHECK(contains(message, "test_missing_entry"));
    CHECK(contains(message, "'no_such_kernel'"));
  }
  // The rejected call left no sticky error: a good launch still runs.
  gpu().launch(*kernel, LaunchGeometry{{1}, {32}}, args);
  gpu().synchronize();
  CHECK(download_words(counter)[0] == 32);
}

TEST_CASE("a graph replays the launches captured into it", "[gpu]") {
  const std::unique_ptr<LoadedKernel> add_one = gpu().load(test_kernel("add_one"));
  DeviceBuffer counter(gpu(), sizeof(unsigned));
  gpu().fill(counter.address(), 0, counter.bytes());
  DeviceAddress counter_address = counter.address();
  void* args[] = {&counter_address};
  const LaunchGeometry one_thread{{1}, {1}};

  GpuGraph single(gpu(), [&] { gpu().launch(*add_one, one_thread, args); });
  gpu().synchronize();
  CHECK(download_words(counter)[0] == 0);  // capturing records, it does not run

  single.launch(10);
  gpu().synchronize();
  CHECK(download_words(counter)[0] == 10);

  GpuGraph ten(gpu(), [&] {
    for (int i = 0; i < 10; ++i) gpu().launch(*add_one, one_thread, args);
  });
  ten.launch();
  gpu().synchronize();
  CHECK(download_words(counter)[0] == 20);
}

TEST_CASE("a capture that fails is ended, and the stream stays usable", "[gpu]") {
  const std::unique_ptr<LoadedKernel> add_one = gpu().load(test_kernel("add_one"));
  DeviceBuffer counter(gpu(), sizeof(unsigned));
  gpu().fill(counter.address(), 0, counter.bytes());
  DeviceAddress counter_address = counter.address();
  void* args[] = {&counter_address};

  const std::string message = error_message([&] {
    GpuGraph broken(gpu(), [&] { gpu().launch(*add_one, LaunchGeometry{{1}, {4096}}, args); });
  });
  CHECK(contains(message, "test_add_one"));

  gpu().launch(*add_one, LaunchGeometry{{1}, {1}}, args);
  gpu().synchronize();
  CHECK(download_words(counter)[0] == 1);
}

TEST_CASE("events time work on the stream", "[gpu]") {
  const std::unique_ptr<LoadedKernel> kernel = gpu().load(test_kernel("write_index"));
  constexpr unsigned n = 1 << 20;
  DeviceBuffer out(gpu(), n * sizeof(unsigned));
  DeviceAddress out_address = out.address();
  unsigned count = n;
  void* args[] = {&out_address, &count};

  GpuEvent start(gpu()), end(gpu());
  start.record();
  for (int i = 0; i < 20; ++i) gpu().launch(*kernel, LaunchGeometry{{n / 256}, {256}}, args);
  end.record();
  const float ms = elapsed_ms(start, end);
  CHECK(ms > 0.0f);
  CHECK(ms < 1000.0f);

  // Moved-from events are inert; the moved-to one still works.
  GpuEvent moved = std::move(start);
  moved.record();
  moved.synchronize();
}

}  // namespace
}  // namespace exactune
