// NVRTC opened at run time (compile/nvrtc_library.hpp): no program of
// exactune links it, the toolkit's is found where it lies, a path in
// EXACTUNE_NVRTC_LIBRARY (what the Python package sets to the
// nvidia-cuda-nvrtc wheel's library) is loaded as given, and one that does not
// load fails every GPU compile with the reason, never silently falling back.
#include <cuda.h>
#include <fmt/format.h>

#include <filesystem>
#include <string>

#include "catch.hpp"
#include "compile/nvrtc_library.hpp"
#include "support/cli_family.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_directory.hpp"

using namespace exactune;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A cold compile of one variant at one size, with the environment `prefix` sets.
CliResult compile_with(const std::string& prefix, const std::filesystem::path& folder) {
  std::filesystem::create_directories(folder);
  const std::filesystem::path shapes = exactune_test::write_cli_shapes(folder, {exactune_test::cli_shape("small", 64)});
  return run_shell(fmt::format("{} '{}' compile --shapes '{}' --variants '{}' --cache-dir '{}/cache' --no-table",
                               prefix, EXACTUNE_CLI, shapes.string(), exactune_test::cli_variant(), folder.string()));
}

}  // namespace

TEST_CASE("NVRTC is opened at run time: found by itself, or loaded from the path given, or each GPU compile says why",
          "[nvrtc]") {
  const NvrtcLibrary& library = nvrtc();
  CHECK_FALSE(library.path.empty());
  int major = 0, minor = 0;
  REQUIRE(library.nvrtcVersion(&major, &minor) == NVRTC_SUCCESS);
  CHECK(major == CUDA_VERSION / 1000);

  const ScratchDirectory dir("nvrtc-library");
  // The library by the path a wheel would give: compiles as before.
  const std::string found = std::filesystem::exists(library.path)
                                ? library.path
                                : "/usr/local/cuda/lib64/libnvrtc.so." + std::to_string(major);
  REQUIRE(std::filesystem::exists(found));
  const CliResult given = compile_with(fmt::format("EXACTUNE_NVRTC_LIBRARY='{}'", found), dir.path() / "given");
  INFO(given.output);
  CHECK(given.exit_code == 0);
  CHECK(contains(given.output, "0 errors"));

  // A path that does not load: every GPU compile fails, naming it; the process does not abort.
  const CliResult missing = compile_with("EXACTUNE_NVRTC_LIBRARY=/no/such/libnvrtc.so", dir.path() / "missing");
  INFO(missing.output);
  CHECK(missing.exit_code == 1);
  CHECK(contains(missing.output, "EXACTUNE_NVRTC_LIBRARY=/no/such/libnvrtc.so cannot be loaded"));
  CHECK_FALSE(contains(missing.output, "terminate called"));
}
