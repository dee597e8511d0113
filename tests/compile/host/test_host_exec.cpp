// The CPU execution layer: kernel templates compiled by the host compiler and
// run by the CPU backend with CUDA's semantics. Small kernels (tests/data/
// host_kernels) pin down each simulated semantic: shuffles, barriers, thread
// and block indices, deadlocks reported instead of hung, blocks spread over OS
// threads, the portable fibers; then the CPU backend's memory and identity, and
// the host compiler: kernels cached one by one, a compile error pinned to its
// request, requests it cannot take refused with a reason. A family's own
// kernels on the CPU are its tests (families/<name>/tests/cpu).
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <exactune/error.hpp>

#include "backends/cpu/cpu_backend.hpp"
#include "catch.hpp"
#include "compile/compile_cache.hpp"
#include "compile/host/host_compiler.hpp"
#include "support/host_kernels.hpp"
#include "support/scratch_directory.hpp"

#ifndef EXACTUNE_TEST_DATA_DIR
#error "EXACTUNE_TEST_DATA_DIR must name the core's tests/data"
#endif

namespace {

using namespace exactune;
using namespace exactune_test;
namespace fs = std::filesystem;

HostCompileSettings test_settings() {
  HostCompileSettings settings;
  settings.extra_source_dir = EXACTUNE_TEST_DATA_DIR;
  return settings;
}

CompileRequest semantics_kernel(const std::string& kernel) {
  return host_request(kernel, "host_kernels/semantics.cuh", "&host_kernel_tests::" + kernel);
}

// The same kernel on the portable ucontext fibers instead of the x86-64 switch.
CompileRequest ucontext_kernel(const std::string& kernel) {
  return host_request(kernel + "@ucontext", "host_kernels/semantics.cuh", "&host_kernel_tests::" + kernel,
                      {"EXACTUNE_HOST_UCONTEXT=1"});
}
const std::vector<std::string> kUcontextKernels = {"rotate_through_shared", "block_sums", "exit_before_barrier"};

const std::vector<std::string> kSemanticsKernels = {
    "shuffle_probe",       "rotate_through_shared", "record_indices",
    "exit_before_barrier", "half_warp_shuffle",     "partial_mask_shuffle",
    "block_sums",          "shuffle_chain",         "deep_stack",
};

// An embedded template's kernel beside the test's own files.
CompileRequest copy_kernel() {
  return host_request("copy_bytes", "kernel_templates/copy.cuh", "&exactune_kernels::copy_bytes");
}

std::vector<CompileRequest> all_requests() {
  std::vector<CompileRequest> requests;
  for (const std::string& kernel : kSemanticsKernels) requests.push_back(semantics_kernel(kernel));
  for (const std::string& kernel : kUcontextKernels) requests.push_back(ucontext_kernel(kernel));
  requests.push_back(copy_kernel());
  return requests;
}

const CompiledKernel& kernel(const std::string& name) {
  static const HostKernels kernels(all_requests(), test_settings());
  return kernels(name);
}

// The message of the launch's failure ("" when it succeeded).
template <class... Args>
std::string launch_error(CpuBackend& backend, const std::string& name, const LaunchGeometry& g, Args... args) {
  try {
    launch(backend, kernel(name), g, args...);
  } catch (const error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

// ===========================================================================
// Semantics
// ===========================================================================

TEST_CASE("host shuffles return what CUDA's lane rules say, own value when out of range", "[host_exec]") {
  CpuBackend backend(1);
  // CUDA's documented rules, written independently of the shim's PTX model.
  auto expected = [](int flavour, unsigned t, unsigned delta, unsigned width) -> int {
    const unsigned warp_base = t / 32 * 32, lane = t % 32, segment = lane / width * width, in_segment = lane % width;
    unsigned source = lane;
    switch (flavour % 4) {
      case 0: source = in_segment + delta < width ? lane + delta : lane; break;
      case 1: source = in_segment >= delta ? lane - delta : lane; break;
      case 2: source = (lane ^ delta) < segment + width ? lane ^ delta : lane; break;
      case 3: source = segment + delta % width; break;
    }
    if (flavour == 4) source = in_segment + delta < width ? lane + delta : lane;        // down, float
    if (flavour == 5) source = (lane ^ delta) < segment + width ? lane ^ delta : lane;  // xor, unsigned
    if (flavour == 6) source = in_segment >= delta ? lane - delta : lane;               // up, double
    return static_cast<int>(1000 + warp_base + source);
  };
  for (unsigned threads : {32u, 64u}) {
    for (unsigned delta : {0u, 1u, 3u, 16u, 31u}) {
      for (int width : {32, 16, 8, 4, 1}) {
        DeviceBuffer out(backend, 7 * threads * sizeof(int));
        launch(backend, kernel("shuffle_probe"), geometry({1, 1, 1}, {threads, 1, 1}), device_pointer<int>(out), delta,
               width);
        const std::vector<int> got = host_copy<int>(backend, out);
        for (int flavour = 0; flavour < 7; ++flavour) {
          for (unsigned t = 0; t < threads; ++t) {
            INFO(fmt::format("flavour {} thread {} delta {} width {}", flavour, t, delta, width));
            REQUIRE(got[flavour * threads + t] == expected(flavour, t, delta, static_cast<unsigned>(width)));
          }
        }
      }
    }
  }
}

TEST_CASE("__syncthreads orders shared memory within each block", "[host_exec]") {
  CpuBackend backend(2);
  const unsigned blocks = 6, threads = 128;
  const int rounds = 5;
  DeviceBuffer out(backend, blocks * threads * sizeof(int));
  launch(backend, kernel("rotate_through_shared"), geometry({blocks, 1, 1}, {16, 4, 2}), device_pointer<int>(out),
         rounds);
  const std::vector<int> got = host_copy<int>(backend, out);
  for (unsigned b = 0; b < blocks; ++b) {
    for (unsigned t = 0; t < threads; ++t) {
      INFO(fmt::format("block {} thread {}", b, t));
      REQUIRE(got[b * threads + t] == static_cast<int>((t + rounds) % threads + 100000 * b + rounds));
    }
  }
}

TEST_CASE("threads see their own 3-D thread and block indices", "[host_exec]") {
  CpuBackend backend(2);
  const Dim3 grid{3, 2, 2}, block{8, 4, 2};
  const unsigned threads = 64, blocks = 12;
  DeviceBuffer out(backend, 12 * threads * blocks * sizeof(unsigned));
  launch(backend, kernel("record_indices"), geometry(grid, block), device_pointer<unsigned>(out));
  const std::vector<unsigned> got = host_copy<unsigned>(backend, out);
  std::size_t i = 0;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx)
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx, i += 12) {
              const std::vector<unsigned> record(got.begin() + static_cast<std::ptrdiff_t>(i),
                                                 got.begin() + static_cast<std::ptrdiff_t>(i + 12));
              REQUIRE(record == std::vector<unsigned>{tx, ty, tz, bx, by, bz, 8, 4, 2, 3, 2, 2});
            }
}

// Fiber stacks lie side by side with no guard page between them; each one's
// lowest bytes are a canary band, checked when the block ends.
TEST_CASE("a thread that runs past its fiber stack is an error naming it", "[host_exec]") {
  CpuBackend backend(1);
  DeviceBuffer out(backend, sizeof(int));
  const std::string overflow =
      launch_error(backend, "deep_stack", geometry({1, 1, 1}, {2, 1, 1}), device_pointer<int>(out));
  CHECK(contains(overflow, "deep_stack"));
  CHECK(contains(overflow, "thread (1,0,0) of block (0,0,0) ran past its 65536-byte stack"));
}

TEST_CASE("a barrier that can never complete is an error, not a hang", "[host_exec]") {
  CpuBackend backend(2);
  DeviceBuffer out(backend, 64 * sizeof(int));
  int* out_ptr = device_pointer<int>(out);

  const std::string barrier = launch_error(backend, "exit_before_barrier", geometry({3, 1, 1}, {64, 1, 1}), out_ptr);
  CHECK(contains(barrier, "exit_before_barrier"));
  CHECK(contains(barrier, "deadlock: 48 threads wait at __syncthreads while 16 finished"));

  const std::string shuffle = launch_error(backend, "half_warp_shuffle", geometry({1, 1, 1}, {64, 1, 1}), out_ptr);
  CHECK(contains(shuffle,
                 "deadlock: 0 threads wait at __syncthreads, 32 at a warp shuffle/__syncwarp, while 32 finished"));

  const std::string mask = launch_error(backend, "partial_mask_shuffle", geometry({1, 1, 1}, {32, 1, 1}), out_ptr);
  CHECK(contains(mask, "mask 0x0000ffff"));

  const std::string too_big =
      launch_error(backend, "record_indices", geometry({1, 1, 1}, {2048, 1, 1}), device_pointer<unsigned>(out));
  CHECK(contains(too_big, "invalid launch"));

  // The backend and the library stay usable after a failed launch.
  CHECK(launch_error(backend, "rotate_through_shared", geometry({1, 1, 1}, {64, 1, 1}), out_ptr, 3).empty());
}

TEST_CASE("many blocks spread over several OS threads give the same sums", "[host_exec]") {
  const unsigned blocks = 3000, threads = 128;
  std::vector<int> input(blocks * threads);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> values(-1000, 1000);
  for (int& v : input) v = values(rng);
  std::vector<long long> expected(blocks, 0);
  for (std::size_t i = 0; i < input.size(); ++i) expected[i / threads] += input[i];

  for (unsigned os_threads : {1u, 2u, 3u}) {
    CpuBackend backend(os_threads);
    const DeviceBuffer in = device_copy(backend, input);
    DeviceBuffer out(backend, blocks * sizeof(long long));
    launch(backend, kernel("block_sums"), geometry({blocks, 1, 1}, {threads, 1, 1}), device_pointer<const int>(in),
           device_pointer<long long>(out));
    INFO(backend.description());
    CHECK(host_copy<long long>(backend, out) == expected);
  }
}

TEST_CASE("the portable ucontext fibers give the same results", "[host_exec]") {
  CpuBackend backend(2);
  const unsigned blocks = 40, threads = 128;
  std::vector<int> input(blocks * threads);
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<int>(i % 1013) - 500;
  const DeviceBuffer in = device_copy(backend, input);
  DeviceBuffer sums(backend, blocks * sizeof(long long)), rotated(backend, blocks * threads * sizeof(int));
  for (const std::string& variant : {std::string(), std::string("@ucontext")}) {
    INFO("kernels" << variant);
    launch(backend, kernel("block_sums" + variant), geometry({blocks, 1, 1}, {threads, 1, 1}),
           device_pointer<const int>(in), device_pointer<long long>(sums));
    launch(backend, kernel("rotate_through_shared" + variant), geometry({blocks, 1, 1}, {threads, 1, 1}),
           device_pointer<int>(rotated), 3);
    const std::vector<long long> got_sums = host_copy<long long>(backend, sums);
    const std::vector<int> got_rotated = host_copy<int>(backend, rotated);
    for (unsigned b = 0; b < blocks; ++b) {
      long long expected = 0;
      for (unsigned t = 0; t < threads; ++t) expected += input[b * threads + t];
      CHECK(got_sums[b] == expected);
      CHECK(got_rotated[b * threads] == static_cast<int>(3 + 100000 * b + 3));
    }
    CHECK(contains(launch_error(backend, "exit_before_barrier" + variant, geometry({1, 1, 1}, {64, 1, 1}),
                                device_pointer<int>(rotated)),
                   "deadlock: 48 threads wait at __syncthreads while 16 finished"));
  }
}

TEST_CASE("the CPU backend's memory and identity", "[host_exec]") {
  CpuBackend backend(3);
  CHECK(backend.target() == "host");
  CHECK(backend.description() == "CPU (3 threads), rstd host-approximated");
  DeviceBuffer buffer(backend, 1000);
  CHECK(buffer.address() % 256 == 0);
  backend.fill(buffer.address(), 0xab, 1000);
  std::vector<unsigned char> bytes(1000);
  backend.download(bytes.data(), buffer.address(), bytes.size());
  CHECK(bytes == std::vector<unsigned char>(1000, 0xab));

  CompiledKernel gpu_kernel;
  gpu_kernel.name = "cubin";
  gpu_kernel.target = "sm_90";
  CHECK_THROWS_AS(backend.load(gpu_kernel), error);
}

// ===========================================================================
// The host compiler
// ===========================================================================

TEST_CASE("host kernels are cached one by one", "[host_exec]") {
  kernel("block_sums");  // everything of this file is compiled (and cached) by now
  const std::vector<CompileRequest> again = {semantics_kernel("block_sums"), semantics_kernel("record_indices"),
                                             copy_kernel()};
  const std::vector<CompileOutcome> outcomes = compile_for_host(again, host_test_cache(), test_settings());
  for (const CompileOutcome& outcome : outcomes) {
    INFO(outcome.request.name << ": " << outcome.log);
    CHECK(outcome.ok);
    CHECK(outcome.cache_hit);
    CHECK(outcome.kernel.target == "host");
    CHECK(outcome.kernel.entry.rfind("exactune_host_launch_", 0) == 0);
    CHECK(fs::is_regular_file(outcome.kernel.binary_path()));
  }
  // A kernel's identity includes its defines: the same kernel of the same file, another define.
  CHECK(outcomes[0].kernel.entry != kernel("block_sums@ucontext").entry);
}

TEST_CASE("a compile error is pinned to its request and the others still compile", "[host_exec]") {
  ScratchDirectory scratch("host-exec-pin");
  const CompileCache cache(scratch.path());
  HostCompileSettings settings = test_settings();
  settings.jobs = 1;  // one batch of three, so that the fallback has to split it
  // A slice of 64 lanes, which the template rejects.
  const std::vector<CompileRequest> requests = {
      semantics_kernel("record_indices"),
      host_request("lane_slice_64", "host_kernels/refusing_template.cuh", "&host_kernel_tests::lane_slice<64>"),
      semantics_kernel("block_sums")};
  const std::vector<CompileOutcome> outcomes = compile_for_host(requests, cache, settings);
  CHECK(outcomes[0].ok);
  CHECK(outcomes[2].ok);
  REQUIRE_FALSE(outcomes[1].ok);
  INFO(outcomes[1].log);
  CHECK(contains(outcomes[1].log, "request lane_slice_64"));
  CHECK(contains(outcomes[1].log, "a slice may not span more than a warp's 32 lanes"));
}

TEST_CASE("requests the host compiler cannot take fail with a reason", "[host_exec]") {
  std::vector<CompileRequest> requests = {semantics_kernel("block_sums"),
                                          host_request("nowhere", "kernel_templates/missing.cuh", "&f")};
  requests[0].target = "sm_90";
  const std::vector<CompileOutcome> outcomes = compile_for_host(requests, host_test_cache(), test_settings());
  CHECK_FALSE(outcomes[0].ok);
  CHECK(contains(outcomes[0].log, "target 'sm_90' is not 'host'"));
  CHECK_FALSE(outcomes[1].ok);
  CHECK(contains(outcomes[1].log, "kernel_templates/missing.cuh"));

  const char* saved = std::getenv("CXX");
  const std::string saved_value = saved ? saved : "";
  setenv("CXX", "/nonexistent/c++", 1);
  const std::vector<CompileOutcome> no_compiler =
      compile_for_host({semantics_kernel("block_sums")}, host_test_cache(), test_settings());
  if (saved)
    setenv("CXX", saved_value.c_str(), 1);
  else
    unsetenv("CXX");
  CHECK_FALSE(no_compiler[0].ok);
  CHECK(contains(no_compiler[0].log, "no host C++ compiler"));
}
