// The GPU suite's main: without a usable GPU it reports itself skipped (exit
// 77, ctest's SKIP_RETURN_CODE) and says why, unless EXACTUNE_REQUIRE_GPU=1
// (ci/gpu.sh sets it: on the GPU machine a skip would read as a pass), which
// makes it a failure; with a GPU, it names the GPU first so that every log
// says what the results were measured on.
#if __has_include(<catch2/catch_session.hpp>)
#include <catch2/catch_session.hpp>  // Catch2 v3
#else
#define CATCH_CONFIG_RUNNER  // Catch2 v2
#include <catch2/catch.hpp>
#endif

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

#include "backends/gpu/cuda_driver.hpp"
#include "backends/gpu/device_info.hpp"

namespace {
constexpr int kSkipped = 77;
}

int main(int argc, char** argv) {
  if (const std::optional<std::string> reason = exactune::why_no_gpu()) {
    const char* required = std::getenv("EXACTUNE_REQUIRE_GPU");
    if (required && std::string(required) == "1") {
      fmt::print("FAILED: EXACTUNE_REQUIRE_GPU=1, and the GPU tests cannot run: {}\n", *reason);
      return 1;
    }
    fmt::print("SKIPPED: GPU tests need a GPU: {}\n", *reason);
    return kSkipped;
  }
  try {
    fmt::print("GPU 0: {}\n", exactune::describe_gpu(0).summary());
  } catch (const std::exception& e) {
    fmt::print(stderr, "cannot describe GPU 0: {}\n", e.what());
    return 1;
  }
  std::fflush(stdout);
  const int failures = Catch::Session().run(argc, argv);
  // Catch returns the number of failed tests; 77 of them must not read as "skipped".
  return failures == kSkipped ? 1 : failures;
}
