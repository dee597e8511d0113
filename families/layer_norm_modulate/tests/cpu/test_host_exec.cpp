// The CPU execution layer: kernel templates compiled by the host compiler and
// run by the CPU backend with CUDA's semantics. First small kernels (the
// family's tests/data/host_kernels) that pin down each simulated semantic, then
// the real thing: the fused LayerNorm + modulate variants against the aten
// replica and the eager chain, bit for bit, and planted faults that must be caught.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <exactune/error.hpp>

#include "backends/cpu/cpu_backend.hpp"
#include "catch.hpp"
#include "compile/compile_cache.hpp"
#include "compile/host/host_compiler.hpp"
#include "support/scratch_directory.hpp"

#ifndef EXACTUNE_TEST_DATA_DIR
#error "EXACTUNE_TEST_DATA_DIR must name the family's tests/data"
#endif

namespace {

using namespace exactune;
namespace fs = std::filesystem;
using bf16 = std::uint16_t;

const CompileCache& test_cache() {
  static ScratchDirectory scratch("host-exec-test");
  static const CompileCache cache(std::getenv("EXACTUNE_CACHE_DIR") ? CompileCache::default_directory()
                                                                    : scratch.path());
  return cache;
}

HostCompileSettings test_settings() {
  HostCompileSettings settings;
  settings.extra_source_dir = EXACTUNE_TEST_DATA_DIR;
  return settings;
}

// ---------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------
CompileRequest host_request(std::string name, std::string main_file, std::string name_expression,
                            std::vector<std::string> defines = {}) {
  return CompileRequest{std::move(name), std::move(main_file), std::move(name_expression), "host", std::move(defines)};
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
    "shuffle_probe",     "rotate_through_shared", "record_indices", "exit_before_barrier",
    "half_warp_shuffle", "partial_mask_shuffle",  "block_sums",     "shuffle_chain",
};

struct FusedVariant {
  int warps, rows_per_cta, vec_lanes, tail, source, counts, packed, persistent = 0;

  std::string name() const {
    return fmt::format("w{}_r{}_v{}_{}_{}_{}_{}{}", warps, rows_per_cta, vec_lanes * 8, tail ? "peeled" : "predicated",
                       source ? "registers" : "reload", counts ? "fold" : "rcp", packed ? "bf16x2" : "f32",
                       persistent ? "_persistent" : "");
  }
};

// Every axis value at least once, every threads-per-row (32, 64, 128) and
// both load widths: W in {1,2,4,8,16}, T = 32W/R, V=2 only with T <= 64.
// Modulation follows counts (early where folded).
const std::vector<FusedVariant> kFusedVariants = {
    {1, 1, 1, 0, 0, 0, 0},    {2, 2, 1, 1, 0, 1, 1},    {2, 1, 2, 1, 1, 0, 1},  {4, 2, 1, 0, 1, 1, 0},
    {4, 1, 1, 1, 0, 0, 1},    {8, 4, 2, 0, 0, 1, 0},    {16, 4, 1, 1, 1, 0, 1}, {16, 16, 2, 1, 1, 1, 1},
    {2, 1, 2, 0, 1, 1, 1, 1}, {4, 2, 1, 1, 1, 0, 0, 1},
};
const std::vector<int> kHiddenSizes = {64, 400, 2240};
const std::vector<int> kPlantedFaults = {1, 2, 3};

// Where a planted fault is certain to change outputs of these inputs. Fault 1
// (the mean FMA's operands swapped) changes nothing at D = 64: every combine
// there joins equal counts or an empty partner, where both operand orders give
// the same bits. Fault 3 (the warp tree reversed) and fault 1 at D = 400 move
// the statistics by a last bit in some rows only; with x around 100 that is
// seen at D = 2240 (fault 3) and D >= 400 (fault 1), while elsewhere a handful
// of elements per million flip, too few to assert on.
bool fault_must_show(int fault, int hidden) {
  switch (fault) {
    case 1: return hidden >= 400;
    case 2: return true;
    case 3: return hidden >= 2240;
    default: return false;
  }
}

// One variant per threads-per-row and load width carries each planted fault.
const std::vector<FusedVariant> kFaultyVariants = {
    {4, 1, 1, 1, 0, 0, 0}, {2, 1, 2, 1, 1, 1, 1}, {1, 1, 1, 0, 0, 1, 0}, {4, 1, 1, 1, 0, 1, 1}};

std::string fused_name(const FusedVariant& v, int hidden, int fault) {
  return fmt::format("{}@D{}{}", v.name(), hidden, fault ? fmt::format("+fault{}", fault) : "");
}

CompileRequest fused_request(const FusedVariant& v, int hidden, int fault) {
  return host_request(
      fused_name(v, hidden, fault), "families/layer_norm_modulate/kernels/fused_layer_norm_modulate.cuh",
      fmt::format("&exactune_kernels::fused_layer_norm_modulate<{}, {}, {}, {}, {}, {}, {}, {}, {}, {}>", hidden,
                  v.warps, v.rows_per_cta, v.vec_lanes, v.tail, v.source, v.counts, v.counts, v.packed, v.persistent),
      fault ? std::vector<std::string>{fmt::format("EXACTUNE_PLANTED_FAULT={}", fault)} : std::vector<std::string>{});
}

std::vector<CompileRequest> all_requests() {
  std::vector<CompileRequest> requests;
  for (const std::string& kernel : kSemanticsKernels) requests.push_back(semantics_kernel(kernel));
  for (const std::string& kernel : kUcontextKernels) requests.push_back(ucontext_kernel(kernel));
  requests.push_back(host_request("aten_layer_norm", "kernel_templates/reference_layer_norm.cuh",
                                  "&exactune_kernels::aten_layer_norm"));
  for (const char* step : {"eager_one_plus", "eager_scale", "eager_shift"}) {
    requests.push_back(host_request(step, "families/layer_norm_modulate/kernels/eager_chain.cuh",
                                    fmt::format("&exactune_kernels::{}", step)));
  }
  for (int hidden : kHiddenSizes) {
    for (const FusedVariant& v : kFusedVariants) requests.push_back(fused_request(v, hidden, 0));
    for (int fault : kPlantedFaults) {
      if (!fault_must_show(fault, hidden)) continue;
      for (const FusedVariant& v : kFaultyVariants) requests.push_back(fused_request(v, hidden, fault));
    }
  }
  return requests;
}

// Every kernel this file runs, compiled once per process in one call, so that
// the host compiler batches and parallelises them as a sweep would.
const CompiledKernel& kernel(const std::string& name) {
  static const std::map<std::string, CompileOutcome> compiled = [] {
    std::map<std::string, CompileOutcome> by_name;
    for (CompileOutcome& outcome : compile_for_host(all_requests(), test_cache(), test_settings())) {
      by_name.emplace(outcome.request.name, std::move(outcome));
    }
    return by_name;
  }();
  const auto found = compiled.find(name);
  REQUIRE(found != compiled.end());
  INFO(found->second.log);
  REQUIRE(found->second.ok);
  return found->second.kernel;
}

// ---------------------------------------------------------------------------
// Running kernels
// ---------------------------------------------------------------------------
LaunchGeometry geometry(Dim3 grid, Dim3 block) {
  LaunchGeometry g;
  g.grid = grid;
  g.block = block;
  return g;
}

// Arguments are passed by value with the kernel's exact parameter types.
template <class... Args>
void launch(CpuBackend& backend, const std::string& name, const LaunchGeometry& g, Args... args) {
  const std::unique_ptr<LoadedKernel> loaded = backend.load(kernel(name));
  void* pointers[] = {static_cast<void*>(&args)...};
  backend.launch(*loaded, g, pointers);
}

// The message of the launch's failure ("" when it succeeded).
template <class... Args>
std::string launch_error(CpuBackend& backend, const std::string& name, const LaunchGeometry& g, Args... args) {
  try {
    launch(backend, name, g, args...);
  } catch (const error& e) {
    return e.what();
  }
  return "";
}

template <class T>
DeviceBuffer device_copy(Backend& backend, const std::vector<T>& values) {
  DeviceBuffer buffer(backend, values.size() * sizeof(T));
  backend.upload(buffer.address(), values.data(), values.size() * sizeof(T));
  return buffer;
}

template <class T>
std::vector<T> host_copy(Backend& backend, const DeviceBuffer& buffer) {
  std::vector<T> values(buffer.bytes() / sizeof(T));
  backend.download(values.data(), buffer.address(), buffer.bytes());
  return values;
}

template <class T>
T* device_pointer(const DeviceBuffer& buffer) {
  return reinterpret_cast<T*>(static_cast<std::uintptr_t>(buffer.address()));
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
        launch(backend, "shuffle_probe", geometry({1, 1, 1}, {threads, 1, 1}), device_pointer<int>(out), delta, width);
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
  launch(backend, "rotate_through_shared", geometry({blocks, 1, 1}, {16, 4, 2}), device_pointer<int>(out), rounds);
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
  launch(backend, "record_indices", geometry(grid, block), device_pointer<unsigned>(out));
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
    launch(backend, "block_sums", geometry({blocks, 1, 1}, {threads, 1, 1}), device_pointer<const int>(in),
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
    launch(backend, "block_sums" + variant, geometry({blocks, 1, 1}, {threads, 1, 1}), device_pointer<const int>(in),
           device_pointer<long long>(sums));
    launch(backend, "rotate_through_shared" + variant, geometry({blocks, 1, 1}, {threads, 1, 1}),
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
  std::vector<CompileRequest> again = {semantics_kernel("block_sums"), semantics_kernel("record_indices"),
                                       fused_request(kFusedVariants[0], 64, 0)};
  const std::vector<CompileOutcome> outcomes = compile_for_host(again, test_cache(), test_settings());
  for (const CompileOutcome& outcome : outcomes) {
    INFO(outcome.request.name << ": " << outcome.log);
    CHECK(outcome.ok);
    CHECK(outcome.cache_hit);
    CHECK(outcome.kernel.target == "host");
    CHECK(outcome.kernel.entry.rfind("exactune_host_launch_", 0) == 0);
    CHECK(fs::is_regular_file(outcome.kernel.binary_path));
  }
  // A kernel's identity includes its defines.
  CHECK(outcomes[2].kernel.entry != kernel(fused_name(kFaultyVariants[2], 64, 2)).entry);
}

TEST_CASE("a compile error is pinned to its request and the others still compile", "[host_exec]") {
  ScratchDirectory scratch("host-exec-pin");
  const CompileCache cache(scratch.path());
  HostCompileSettings settings = test_settings();
  settings.jobs = 1;  // one batch of three, so that the fallback has to split it
  // 128 threads per row with 16-byte loads: a chunk spans 256 aten lanes, which the template rejects.
  const FusedVariant invalid{4, 1, 2, 0, 0};
  const std::vector<CompileRequest> requests = {semantics_kernel("record_indices"), fused_request(invalid, 64, 0),
                                                semantics_kernel("block_sums")};
  const std::vector<CompileOutcome> outcomes = compile_for_host(requests, cache, settings);
  CHECK(outcomes[0].ok);
  CHECK(outcomes[2].ok);
  REQUIRE_FALSE(outcomes[1].ok);
  INFO(outcomes[1].log);
  CHECK(contains(outcomes[1].log, "request " + invalid.name() + "@D64"));
  CHECK(contains(outcomes[1].log, "a chunk may not span more than aten's 128 lanes"));
}

TEST_CASE("requests the host compiler cannot take fail with a reason", "[host_exec]") {
  std::vector<CompileRequest> requests = {semantics_kernel("block_sums"),
                                          host_request("nowhere", "kernel_templates/missing.cuh", "&f")};
  requests[0].target = "sm_90";
  const std::vector<CompileOutcome> outcomes = compile_for_host(requests, test_cache(), test_settings());
  CHECK_FALSE(outcomes[0].ok);
  CHECK(contains(outcomes[0].log, "target 'sm_90' is not 'host'"));
  CHECK_FALSE(outcomes[1].ok);
  CHECK(contains(outcomes[1].log, "kernel_templates/missing.cuh"));

  const char* saved = std::getenv("CXX");
  const std::string saved_value = saved ? saved : "";
  setenv("CXX", "/nonexistent/c++", 1);
  const std::vector<CompileOutcome> no_compiler =
      compile_for_host({semantics_kernel("block_sums")}, test_cache(), test_settings());
  if (saved)
    setenv("CXX", saved_value.c_str(), 1);
  else
    unsetenv("CXX");
  CHECK_FALSE(no_compiler[0].ok);
  CHECK(contains(no_compiler[0].log, "no host C++ compiler"));
}

// ===========================================================================
// LayerNorm + modulate: the fused variants against the reference
// ===========================================================================

namespace {

bf16 to_bf16(float f) {  // nearest even; inputs only
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return static_cast<bf16>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

float from_bf16(bf16 b) {
  const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// x is (batch, tokens, hidden); scale and shift are chunks 1 and 0 of a
// (batch, 6, hidden) adaLN embedding, so modulation_stride is 6 * hidden.
struct Problem {
  int batch = 2, tokens = 37, hidden = 0;
  float eps = 1e-6f;
  int rows() const { return batch * tokens; }
  long long modulation_stride() const { return 6LL * hidden; }
};

// x = offset + N(0, 1) in bf16. Around 100, a last-bit change of the mean
// moves many outputs across a bf16 rounding boundary, which is what exposes
// a wrong reduction order.
struct InputCase {
  const char* name;
  float offset;
};
const InputCase kStandardNormal{"N(0,1)", 0.0f};
const InputCase kAround100{"100+N(0,1)", 100.0f};

struct ProblemData {
  std::vector<bf16> x, embedding;
};

ProblemData make_data(const Problem& p, const InputCase& input, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  ProblemData data;
  data.x.resize(static_cast<std::size_t>(p.rows()) * p.hidden);
  for (bf16& v : data.x) v = to_bf16(input.offset + normal(rng));
  data.embedding.resize(static_cast<std::size_t>(p.batch) * p.modulation_stride());
  for (bf16& v : data.embedding) v = to_bf16(uniform(rng));
  // The values the spec asks tests to keep: scale -1, 0, 1, signed zeros.
  for (int b = 0; b < p.batch; ++b) {
    bf16* scale = data.embedding.data() + b * p.modulation_stride() + p.hidden;
    scale[0] = to_bf16(-1.0f);
    scale[1] = to_bf16(0.0f);
    scale[2] = to_bf16(1.0f);
    scale[3] = to_bf16(-0.0f);
  }
  for (int row = 0; row < p.rows(); row += 5)
    data.x[static_cast<std::size_t>(row) * p.hidden + row % p.hidden] = 0x8000;
  return data;
}

// The problem's buffers, uploaded once and shared by every run.
struct DeviceProblem {
  DeviceProblem(CpuBackend& backend, const Problem& problem, const ProblemData& data)
      : p(problem),
        x(device_copy(backend, data.x)),
        embedding(device_copy(backend, data.embedding)),
        out(backend, data.x.size() * sizeof(bf16)) {}

  const bf16* x_ptr() const { return device_pointer<const bf16>(x); }
  const bf16* shift_ptr() const { return device_pointer<const bf16>(embedding); }
  const bf16* scale_ptr() const { return device_pointer<const bf16>(embedding) + p.hidden; }
  bf16* out_ptr() const { return device_pointer<bf16>(out); }

  Problem p;
  DeviceBuffer x, embedding, out;
};

LaunchGeometry grid_stride(long long elements) {
  const unsigned blocks = static_cast<unsigned>(std::min<long long>((elements + 255) / 256, 64));
  return geometry({blocks, 1, 1}, {256, 1, 1});
}

struct ReferenceRun {
  std::vector<bf16> out;
  std::vector<float> mean, rstd;
};

// aten's LayerNorm replica, then the three eager kernels, each rounding to bf16.
ReferenceRun run_reference(CpuBackend& backend, DeviceProblem& d) {
  const Problem& p = d.p;
  const long long elements = static_cast<long long>(p.rows()) * p.hidden;
  DeviceBuffer y(backend, elements * sizeof(bf16)), u(backend, elements * sizeof(bf16));
  DeviceBuffer t(backend, static_cast<std::size_t>(p.batch) * p.hidden * sizeof(bf16));
  DeviceBuffer mean(backend, p.rows() * sizeof(float)), rstd(backend, p.rows() * sizeof(float));
  backend.fill(d.out.address(), 0xff, d.out.bytes());

  launch(backend, "aten_layer_norm", geometry({static_cast<unsigned>(p.rows()), 1, 1}, {32, 4, 1}), d.x_ptr(),
         device_pointer<bf16>(y), device_pointer<float>(mean), device_pointer<float>(rstd), p.hidden, p.eps);
  launch(backend, "eager_one_plus", grid_stride(static_cast<long long>(p.batch) * p.hidden), d.scale_ptr(),
         device_pointer<bf16>(t), p.batch, p.hidden, p.modulation_stride());
  launch(backend, "eager_scale", grid_stride(elements), device_pointer<const bf16>(y), device_pointer<const bf16>(t),
         device_pointer<bf16>(u), static_cast<long long>(p.rows()), p.tokens, p.hidden);
  launch(backend, "eager_shift", grid_stride(elements), device_pointer<const bf16>(u), d.shift_ptr(), d.out_ptr(),
         static_cast<long long>(p.rows()), p.tokens, p.hidden, p.modulation_stride());
  return {host_copy<bf16>(backend, d.out), host_copy<float>(backend, mean), host_copy<float>(backend, rstd)};
}

std::vector<bf16> run_fused(CpuBackend& backend, DeviceProblem& d, const std::string& name, const FusedVariant& v) {
  const Problem& p = d.p;
  backend.fill(d.out.address(), 0xff, d.out.bytes());  // poison: every element must be written
  const unsigned groups = static_cast<unsigned>((p.rows() + v.rows_per_cta - 1) / v.rows_per_cta);
  const unsigned ctas = v.persistent ? std::min(groups, 3u) : groups;  // 3 persistent CTAs loop over the groups
  launch(backend, name, geometry({ctas, 1, 1}, {32u * static_cast<unsigned>(v.warps), 1, 1}), d.x_ptr(), d.scale_ptr(),
         d.shift_ptr(), d.out_ptr(), p.rows(), p.tokens, p.modulation_stride(), p.eps);
  return host_copy<bf16>(backend, d.out);
}

struct BitComparison {
  std::size_t mismatches = 0;
  std::string first;
};

BitComparison compare_bits(const std::vector<bf16>& expected, const std::vector<bf16>& actual, int hidden) {
  BitComparison c;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] == actual[i]) continue;
    if (c.mismatches++ == 0) {
      c.first = fmt::format("row {} column {}: expected 0x{:04x}, got 0x{:04x}", i / hidden, i % hidden, expected[i],
                            actual[i]);
    }
  }
  return c;
}

// The reference, computed once per hidden size and input case.
struct Fixture {
  Problem problem;
  ProblemData data;
  ReferenceRun reference;
};

const Fixture& fixture(CpuBackend& backend, int hidden, const InputCase& input, int tokens = 37) {
  static std::map<std::tuple<int, int, std::string>, Fixture> fixtures;
  const auto key = std::make_tuple(hidden, tokens, std::string(input.name));
  auto found = fixtures.find(key);
  if (found == fixtures.end()) {
    Fixture f;
    f.problem.hidden = hidden;
    f.problem.tokens = tokens;
    f.data = make_data(f.problem, input, 1234u + static_cast<unsigned>(hidden));
    DeviceProblem d(backend, f.problem, f.data);
    f.reference = run_reference(backend, d);
    found = fixtures.emplace(key, std::move(f)).first;
  }
  return found->second;
}

}  // namespace

TEST_CASE("the aten replica's statistics are those of the rows", "[host_exec][layer_norm]") {
  CpuBackend backend;
  for (int hidden : kHiddenSizes) {
    const Fixture& f = fixture(backend, hidden, kStandardNormal);
    for (int row = 0; row < f.problem.rows(); ++row) {
      double sum = 0, squares = 0;
      for (int c = 0; c < hidden; ++c) sum += from_bf16(f.data.x[static_cast<std::size_t>(row) * hidden + c]);
      const double mean = sum / hidden;
      for (int c = 0; c < hidden; ++c) {
        const double delta = from_bf16(f.data.x[static_cast<std::size_t>(row) * hidden + c]) - mean;
        squares += delta * delta;
      }
      INFO(fmt::format("D {} row {}", hidden, row));
      CHECK(std::abs(f.reference.mean[row] - mean) < 1e-5);
      CHECK(std::abs(f.reference.rstd[row] * std::sqrt(squares / hidden + f.problem.eps) - 1.0) < 1e-5);
    }
    std::size_t poisoned = 0;
    for (bf16 v : f.reference.out) poisoned += v == 0xffff;
    CHECK(poisoned == 0);
  }
}

TEST_CASE("fused variants match the aten replica and eager chain bit for bit", "[host_exec][layer_norm]") {
  CpuBackend backend;
  for (const InputCase& input : {kStandardNormal, kAround100}) {
    for (int hidden : kHiddenSizes) {
      const Fixture& f = fixture(backend, hidden, input);
      DeviceProblem d(backend, f.problem, f.data);
      for (const FusedVariant& v : kFusedVariants) {
        const std::string name = fused_name(v, hidden, 0);
        const BitComparison c = compare_bits(f.reference.out, run_fused(backend, d, name, v), hidden);
        INFO(name << " on x = " << input.name << ": " << c.mismatches << " mismatches, first " << c.first);
        CHECK(c.mismatches == 0);
      }
    }
  }
}

TEST_CASE("planted faults in the fused variant are caught", "[host_exec][layer_norm]") {
  CpuBackend backend;
  for (int hidden : kHiddenSizes) {
    // More rows than the exactness test: reduction-order faults flip outputs in a few rows only.
    const Fixture& f = fixture(backend, hidden, kAround100, 256);
    DeviceProblem d(backend, f.problem, f.data);
    for (int fault : kPlantedFaults) {
      if (!fault_must_show(fault, hidden)) continue;
      for (const FusedVariant& v : kFaultyVariants) {
        const std::string name = fused_name(v, hidden, fault);
        const BitComparison c = compare_bits(f.reference.out, run_fused(backend, d, name, v), hidden);
        INFO(name << " on x = " << kAround100.name << ": " << c.mismatches << " mismatches");
        CHECK(c.mismatches > 0);
      }
    }
  }
}
