// What works without a GPU: the runtime says why there is none instead of
// failing to start, and the GPU naming used for reports is pure text. The same
// tests pass on a GPU machine, where they check the opposite.
#include <memory>
#include <optional>
#include <string>

#include <exactune/error.hpp>

#include "backends/gpu/cuda_driver.hpp"
#include "backends/gpu/device_info.hpp"
#include "backends/gpu/gpu_backend.hpp"
#include "backends/gpu/sm_clock.hpp"
#include "catch.hpp"

namespace exactune {
namespace {

TEST_CASE("without a usable GPU the runtime says why, with one it opens it", "[gpu-runtime]") {
  const std::optional<std::string> reason = why_no_gpu();
  if (reason) {
    INFO("why_no_gpu: " << *reason);
    CHECK_FALSE(reason->empty());
    CHECK(reason->find('\n') == std::string::npos);
    CHECK(why_no_gpu() == reason);  // decided once
    std::string message;
    try {
      open_gpu_backend();
    } catch (const error& e) {
      message = e.what();
    }
    CHECK(message.find(*reason) != std::string::npos);
    CHECK_THROWS_AS(cuda_driver(), error);
    CHECK_THROWS_AS(describe_gpu(0), error);
  } else {
    const std::unique_ptr<GpuBackend> backend = open_gpu_backend();
    CHECK(backend->target() == describe_gpu(0).arch());
    CHECK(cuda_driver().driver_version > 0);
  }
}

GpuDescription named(std::string name) {
  GpuDescription gpu;
  gpu.name = std::move(name);
  return gpu;
}

TEST_CASE("a GPU slug is its lowercase name with runs of other characters as dashes", "[gpu-runtime]") {
  CHECK(named("NVIDIA H200").slug() == "nvidia-h200");
  CHECK(named("NVIDIA H100 80GB HBM3").slug() == "nvidia-h100-80gb-hbm3");
  CHECK(named("NVIDIA GeForce RTX 4090").slug() == "nvidia-geforce-rtx-4090");
  CHECK(named("  NVIDIA A100-SXM4-40GB (MIG 1g.5gb) ").slug() == "nvidia-a100-sxm4-40gb-mig-1g-5gb");
  CHECK(named("").slug().empty());
}

TEST_CASE("a GPU arch and summary come from its description", "[gpu-runtime]") {
  GpuDescription gpu = named("NVIDIA H200");
  gpu.cc_major = 9;
  gpu.cc_minor = 0;
  gpu.sm_count = 132;
  gpu.l2_bytes = 60LL << 20;
  gpu.total_memory_bytes = 140LL << 30;
  gpu.driver_version = 13000;
  gpu.nvrtc_version = "13.0";
  CHECK(gpu.arch() == "sm_90");
  CHECK(gpu.summary() == "NVIDIA H200 (sm_90, 132 SMs, 60 MiB L2, 140 GiB; driver 13.0, NVRTC 13.0)");

  gpu.memory_bus_bits = 6144;
  gpu.memory_clock_khz = 2619000;
  CHECK(gpu.summary() ==
        "NVIDIA H200 (sm_90, 132 SMs, 60 MiB L2, 140 GiB, 6144-bit @ 2619 MHz; driver 13.0, NVRTC 13.0)");

  gpu.cc_major = 10;
  CHECK(gpu.arch() == "sm_100");
}

TEST_CASE("without NVML no SM clock is read, and why is said; the default clock is the driver's", "[gpu-runtime]") {
  const SmClock clock("00000000:1b:00.0", 1980000, "libexactune-test-no-such-nvml.so.1");
  CHECK_FALSE(clock.read_mhz().has_value());
  CHECK(clock.unavailable_because().find("libexactune-test-no-such-nvml.so.1") != std::string::npos);
  CHECK(clock.default_mhz() == 1980);
  CHECK_FALSE(SmClock("00000000:1b:00.0", 0, "libexactune-test-no-such-nvml.so.1").default_mhz().has_value());
}

}  // namespace
}  // namespace exactune
