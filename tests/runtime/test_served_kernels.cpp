// Where the runtime gets a served kernel (runtime/served_kernels.hpp), on the
// CPU: `exactune export` of the toy's tables writes the kernels the runtime
// can serve; with no NVRTC to be had (EXACTUNE_NVRTC_LIBRARY naming a missing
// file), an exported configuration is served from the export, byte for byte,
// and one the export lacks fails with NVRTC's reason; an exported kernel that
// is stale (another request's key) or damaged is refused, saying so, and goes
// to NVRTC, which compiles it where there is one.
#include <fmt/format.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include <exactune/error.hpp>
#include <exactune/space.hpp>

#include "catch.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "runtime/served_kernels.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_directory.hpp"
#include "support/toy_tables.hpp"
#include "toy_family/toy_family.hpp"
#include "util/content_hash.hpp"
#include "util/text_file.hpp"

using namespace exactune;
namespace fs = std::filesystem;

namespace {

constexpr const char* kNoNvrtc = "/no/such/libnvrtc.so";

// The toy's export, as `exactune export` writes it from the toy tables.
KernelExport export_toy(const fs::path& folder) {
  exactune_test::write_toy_tables(folder / "tables");
  const CliResult made =
      run_shell(fmt::format("EXACTUNE_TABLES_DIR='{0}/tables' '{1}' export --out '{0}/export' "
                            "--cache-dir '{0}/cache'",
                            folder.string(), EXACTUNE_TOY_CLI));
  INFO(made.output);
  REQUIRE(made.exit_code == 0);
  CHECK(made.output.find("export: 5 kernels") != std::string::npos);  // test_export_selection.cpp says which
  return read_kernel_export(folder / "export");
}

CompileRequest toy_request(const std::string& variant, int length) {
  for (const Variant& v : valid_variants(exactune_test::toy_family(), length)) {
    if (v.name == variant) return exactune_test::toy_family().variant_request(v, length, "sm_90");
  }
  FAIL("no toy variant " << variant << " at " << length);
  return {};
}

ServedKernel serve(const KernelExport* exported, const std::string& variant, int length, const fs::path& cache) {
  return served_kernel(exported, "toy_double", variant, length, toy_request(variant, length), CompileCache(cache));
}

std::string failure_of(const KernelExport* exported, const std::string& variant, int length, const fs::path& cache) {
  try {
    serve(exported, variant, length, cache);
  } catch (const error& e) {
    return e.what();
  }
  return "served";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("without NVRTC an exported configuration is served from the export and another fails with NVRTC's reason",
          "[runtime][export]") {
  const ScratchDirectory dir("served-kernels");
  const KernelExport exported = export_toy(dir.path());
  // From here on this process has no NVRTC (ctest runs each test case alone).
  REQUIRE(::setenv("EXACTUNE_NVRTC_LIBRARY", kNoNvrtc, 1) == 0);

  const ExportedKernel& entry = *exported.find("toy_double", "sm_90", "t128_v8_right", 256);
  const ServedKernel served = serve(&exported, "t128_v8_right", 256, dir.path() / "empty-cache");
  CHECK(served.from_export);
  CHECK(served.export_refusal.empty());
  CHECK(served.kernel.entry == entry.entry);
  REQUIRE(served.kernel.binary);
  CHECK(served.kernel.binary->bytes == read_text_file(exported.directory / entry.cubin, "cubin"));

  // Not exported (a length the tables were not tuned at): NVRTC's, which is missing.
  const std::string unexported = failure_of(&exported, "t32_v4_right", 128, dir.path() / "empty-cache");
  CHECK(contains(unexported, "t32_v4_right@L128 failed to compile"));
  CHECK(contains(unexported, fmt::format("EXACTUNE_NVRTC_LIBRARY={} cannot be loaded", kNoNvrtc)));
  // No export at all: the same.
  CHECK(contains(failure_of(nullptr, "t128_v8_right", 256, dir.path() / "empty-cache"), "cannot be loaded"));

  // Stale: the index's key for it is another request's. Refused, then NVRTC's reason.
  KernelExport stale = exported;
  for (ExportedKernel& k : stale.kernels) k.key = nvrtc_build_key(toy_request("t64_v4_right", 64));
  const std::string refused = failure_of(&stale, "t128_v8_right", 256, dir.path() / "empty-cache");
  CHECK(contains(refused, "built from other kernel sources, options or defines than this runtime's"));
  CHECK(contains(refused, "cannot be loaded"));
}

TEST_CASE("a stale or damaged exported kernel is refused, saying why, and compiled by NVRTC", "[runtime][export]") {
  const ScratchDirectory dir("served-kernels-refused");
  const KernelExport exported = export_toy(dir.path());
  const ExportedKernel& entry = *exported.find("toy_double", "sm_90", "t256_v4_right", 256);

  KernelExport stale = exported;
  for (ExportedKernel& k : stale.kernels) k.key = "00000000000000000000000000000000";
  const ServedKernel recompiled = serve(&stale, "t256_v4_right", 256, dir.path() / "cache");
  CHECK_FALSE(recompiled.from_export);
  CHECK(contains(recompiled.export_refusal, "(stale: regenerate it with exactune export)"));
  CHECK(contains(recompiled.export_refusal, "made by `exactune export --out DIR`"));
  REQUIRE(recompiled.kernel.binary);
  CHECK(recompiled.kernel.entry == entry.entry);  // NVRTC built the very kernel the export holds

  std::ofstream(exported.directory / entry.cubin, std::ios::binary | std::ios::trunc) << "not the exported cubin";
  const ServedKernel damaged = serve(&exported, "t256_v4_right", 256, dir.path() / "cache");
  CHECK_FALSE(damaged.from_export);
  CHECK(contains(damaged.export_refusal, "its cubin is damaged"));
  CHECK(contains(damaged.export_refusal, "bytes where"));
  CHECK(damaged.kernel.binary);
}

TEST_CASE("EXACTUNE_EXPORT_DIR names the runtime's export", "[runtime][export]") {
  const ScratchDirectory dir("served-kernels-variable");
  const std::string cubin = "a cubin";
  const std::string hash = content_hash({cubin});
  write_kernel_export(
      dir.path(), "exactune export --out DIR", "NVRTC 13.0",
      {{"key", "toy_double", "sm_90", "t32_v4_right", 64, "_Z1f", exported_cubin_name(hash), cubin.size(), hash}},
      {{exported_cubin_name(hash), cubin}});
  // Read once per process: each of these cases is its own process under ctest.
  REQUIRE(::setenv(kExportDirVariable, dir.path().c_str(), 1) == 0);
  const KernelExport* exported = runtime_export();
  REQUIRE(exported != nullptr);
  CHECK(exported->directory == dir.path());
  CHECK(exported->find("toy_double", "sm_90", "t32_v4_right", 64) != nullptr);
}

TEST_CASE("EXACTUNE_EXPORT_DIR=off serves without an export", "[runtime][export]") {
  REQUIRE(::setenv(kExportDirVariable, "off", 1) == 0);
  CHECK(runtime_export() == nullptr);
}

TEST_CASE("an EXACTUNE_EXPORT_DIR without an index is an error on every call, never a silent fallback",
          "[runtime][export]") {
  const ScratchDirectory dir("served-kernels-no-index");
  REQUIRE(::setenv(kExportDirVariable, dir.path().c_str(), 1) == 0);
  for (int call = 0; call < 2; ++call) {
    CHECK_THROWS_WITH(runtime_export(),
                      Catch::Contains(kExportIndexFile) && Catch::Contains("EXACTUNE_EXPORT_DIR=off"));
  }
}

TEST_CASE("the runtime's export is found beside the library or program that holds it", "[runtime][export]") {
  // This test program's folder: the build folder, where no export lies.
  const fs::path beside = export_beside_runtime();
  CHECK(beside.filename() == kExportFolderName);
  CHECK(fs::exists(beside.parent_path() / "exactune_tests_core"));
}
