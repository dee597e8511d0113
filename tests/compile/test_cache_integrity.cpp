// The compile cache against damage and killed runs: a truncated, bit-flipped
// or emptied entry (an NVRTC .cubin, a host kernel library under verify --cpu)
// or one without a checksum record (an older exactune's) is reported once,
// rebuilt and never used, a cubin shared by a batch of kernels included; what
// a killed run left in the cache is removed when the next host build starts,
// what a running one holds is not; and a compiler started by exactune dies
// with it. The kernels are the core's and the toy family's (tests/toy_family);
// verify --cpu runs on the CLI's default family (support/cli_family.hpp).
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "compile/compile_cache.hpp"
#include "compile/compiler.hpp"
#include "compile/host/host_compiler.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "support/cli_family.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_directory.hpp"
#include "support/toy_batch.hpp"
#include "util/subprocess.hpp"

namespace {

using namespace exactune;
namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return std::move(bytes).str();
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The ways an entry is found damaged, each done to the file in place.
struct Damage {
  const char* what;
  std::function<void(const fs::path&)> apply;
};

// The first kFileDamages happen to any file; the last is an entry of an
// exactune from before checksums.
constexpr std::size_t kFileDamages = 3;
const std::vector<Damage> kDamages = {
    {"truncated", [](const fs::path& p) { fs::resize_file(p, fs::file_size(p) / 2); }},
    {"one bit flipped",
     [](const fs::path& p) {
       std::string bytes = read_file(p);
       bytes[bytes.size() / 2] ^= 0x10;
       write_file(p, bytes);
     }},
    {"emptied", [](const fs::path& p) { fs::resize_file(p, 0); }},
    {"without its checksum record (an older exactune's)", [](const fs::path& p) { fs::remove(p.string() + ".sum"); }},
};

// Everything this process writes to stderr while it lives.
class CapturedStderr {
 public:
  CapturedStderr() : file_(std::tmpfile()), saved_(::dup(2)) {
    REQUIRE(file_ != nullptr);
    std::fflush(stderr);
    ::dup2(::fileno(file_), 2);
  }
  ~CapturedStderr() { restore(); }
  std::string text() {
    restore();
    std::string text;
    std::rewind(file_);
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, file_)) text.append(buffer, n);
    return text;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
    saved_ = -1;
  }
  std::FILE* file_;
  int saved_;
};

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

std::string damage_report(const fs::path& entry) {
  return fmt::format("exactune: cache entry {} is damaged (", entry.string());
}

// A pid that no process has: a child's, once it has been reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  REQUIRE(child > 0);
  REQUIRE(::waitpid(child, nullptr, 0) == child);
  return child;
}

// /proc/<pid>/stat's start time, or nothing when no such process runs (a
// zombie runs no more): with the pid, it names one process even if the pid is reused.
std::optional<std::string> running_since(pid_t pid) {
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(stat, line)) return std::nullopt;
  std::istringstream fields(line.substr(line.rfind(')') + 2));
  std::vector<std::string> field{std::istream_iterator<std::string>(fields), {}};
  if (field.size() < 20 || field[0] == "Z" || field[0] == "X") return std::nullopt;
  return field[19];  // starttime, the 22nd field of the line
}

// Waits for `done`, checking every 20 ms, but not forever: a guard against a
// hang, not a measure of time.
bool eventually(const std::function<bool()>& done) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

}  // namespace

TEST_CASE("a damaged .cubin entry is reported once, rebuilt to the same kernel, and never used", "[cache_integrity]") {
  ScratchDirectory scratch("cubin-cache");
  const CompileCache cache(scratch.path());
  // A program no other test of this process compiled: the H200 machine's NVRTC
  // reports (and so exactune caches) only a process's first compile of a program.
  const CompileRequest copy{"copy",
                            "kernel_templates/copy.cuh",
                            "&exactune_kernels::copy_bytes",
                            "sm_90",
                            {fmt::format("EXACTUNE_CACHE_INTEGRITY_TEST={}", ::getpid())}};
  const CompileOutcome original = compile_all({copy}, cache).front();
  INFO(original.log);
  REQUIRE(original.ok);
  const fs::path cubin = original.kernel.binary_path();
  // Where NVRTC gives no ptxas report (the H200 machine's, after a process's
  // first compile of a program), the cubin's own figures stand in
  // (compile/cubin_resources.hpp): every kernel that compiled is cached.
  REQUIRE(original.kernel.resources.registers >= 0);
  REQUIRE(fs::is_regular_file(cubin));

  const std::string key = cubin.stem().string();
  for (const Damage& damage : kDamages) {
    INFO("the .cubin " << damage.what);
    damage.apply(cubin);
    // Only the lookup's stderr is captured: NVRTC may print its ptxas report
    // there (the H200 machine's does), and a compile must keep it.
    std::string reported;
    {
      CapturedStderr captured;
      CHECK_FALSE(cache.read(key, ".cubin").has_value());
      CHECK_FALSE(cache.read(key, ".cubin").has_value());  // reported once: the entry is gone
      reported = captured.text();
    }
    INFO(reported);
    const CompileOutcome rebuilt = compile_all({copy}, cache).front();
    REQUIRE(rebuilt.ok);
    CHECK_FALSE(rebuilt.cache_hit);
    CHECK(rebuilt.kernel.binary_bytes() == original.kernel.binary_bytes());
    CHECK(occurrences(reported, damage_report(cubin)) == 1);
    CHECK(occurrences(reported, "; rebuilding") == 1);

    // A rebuilt entry is whole again: the next lookup is a hit.
    const CompileOutcome again = compile_all({copy}, cache).front();
    CHECK(rebuilt.kernel.resources.registers >= 0);
    CHECK(again.cache_hit);
    CHECK(again.kernel.binary_bytes() == original.kernel.binary_bytes());
  }
}

TEST_CASE(
    "a damaged cubin shared by a batch is reported once and every kernel of the batch is rebuilt, none served "
    "from it",
    "[cache_integrity]") {
  ScratchDirectory scratch("batch-cubin-cache");
  const CompileCache cache(scratch.path());
  for (std::size_t d = 0; d < kFileDamages; ++d) {
    const Damage& damage = kDamages[d];
    INFO("the shared .cubin " << damage.what);
    // Three kernels of one template: one NVRTC program, one cubin, three
    // entries. A program of its own per damage (the define).
    const std::vector<CompileRequest> batch =
        exactune_test::toy_batch(3, fmt::format("EXACTUNE_CACHE_INTEGRITY_BATCH_TEST={}_{}", ::getpid(), d));
    const std::vector<CompileOutcome> original = compile_nvrtc_batch(batch, cache);
    for (const CompileOutcome& o : original) {
      INFO(o.log);
      REQUIRE(o.ok);
      REQUIRE(o.kernel.resources.registers >= 0);  // cached: the cubin's figures stand in for a missing report
    }
    const fs::path cubin = original.front().kernel.binary_path();
    REQUIRE(fs::is_regular_file(cubin));
    damage.apply(cubin);

    std::string reported;
    std::vector<CompileOutcome> rebuilt;
    {
      CapturedStderr captured;
      rebuilt = compile_all(batch, cache);
      reported = captured.text();
    }
    INFO(reported);
    CHECK(occurrences(reported, damage_report(cubin)) == 1);
    // The misses are compiled again in batches of compile_all's choosing, so a
    // rebuilt cubin need not be the original one: each kernel's must hold it.
    for (std::size_t i = 0; i < batch.size(); ++i) {
      REQUIRE(rebuilt[i].ok);
      CHECK_FALSE(rebuilt[i].cache_hit);
      CHECK(rebuilt[i].kernel.entry == original[i].kernel.entry);
      CHECK(rebuilt[i].kernel.resources.registers == original[i].kernel.resources.registers);
      const std::string binary(rebuilt[i].kernel.binary_bytes());
      CHECK(binary.find(rebuilt[i].kernel.entry) != std::string::npos);
    }
  }
}

TEST_CASE(
    "verify --cpu rebuilds a truncated, bit-flipped or emptied host kernel library instead of loading it, and "
    "says so once per library",
    "[cache_integrity]") {
  ScratchDirectory scratch("verify-cache");
  const fs::path shapes = exactune_test::write_cli_shapes(scratch.path(), {exactune_test::cli_shape("tiny", 64)});
  const fs::path cache = scratch.path() / "cache";
  const std::string verify =
      fmt::format("verify --cpu --shapes '{}' --cache-dir '{}' --rows 1 --no-table --variants '{}'", shapes.string(),
                  cache.string(), exactune_test::cli_variant());
  const CliResult first = run_cli(verify);
  INFO(first.output);
  REQUIRE(first.exit_code == 0);

  // Every library of the run (the support kernels' and the variant's), each
  // damaged another way: truncated, one was a SIGBUS in dlopen, and an emptied
  // one was never rebuilt.
  std::vector<fs::path> libraries;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(cache)) {
    if (entry.path().extension() == ".so" && entry.path().parent_path().parent_path() == cache) {
      libraries.push_back(entry.path());
    }
  }
  REQUIRE(libraries.size() >= 2);
  for (std::size_t i = 0; i < libraries.size(); ++i) kDamages[i % kFileDamages].apply(libraries[i]);

  const CliResult rerun = run_cli(verify);
  INFO(rerun.output);
  CHECK(rerun.exit_code == 0);
  for (std::size_t i = 0; i < libraries.size(); ++i) {
    INFO(libraries[i] << " " << kDamages[i % kFileDamages].what);
    CHECK(occurrences(rerun.output, damage_report(libraries[i])) == 1);
  }
  CHECK(occurrences(rerun.output, "is damaged") == libraries.size());
  const CliResult rebuilt = run_cli(verify);
  INFO(rebuilt.output);
  CHECK(rebuilt.exit_code == 0);
  CHECK(occurrences(rebuilt.output, "is damaged") == 0);
}

TEST_CASE("a host build removes the build folders and temporaries of dead processes and keeps a live one's",
          "[cache_integrity]") {
  ScratchDirectory scratch("leftovers-cache");
  const CompileCache cache(scratch.path());
  const pid_t dead = dead_pid();
  const pid_t live = ::getpid();
  const std::string key = "0123456789abcdef0123456789abcdef";
  const auto leftover = [&](const fs::path& relative, bool folder) {
    const fs::path path = scratch.path() / relative;
    fs::create_directories(folder ? path : path.parent_path());
    write_file(folder ? path / "kernels.cpp" : path, "partial");
    return path;
  };
  const fs::path dead_build = leftover(fmt::format("host-build/{}.{}.0", key, dead), true);
  const fs::path live_build = leftover(fmt::format("host-build/{}.{}.0", key, live), true);
  const fs::path dead_entry = leftover(fmt::format("01/{}.so.tmp{}.3", key, dead), false);
  const fs::path dead_entry_of_old_exactune = leftover(fmt::format("01/{}.cubin.tmp{}", key, dead), false);
  const fs::path live_entry = leftover(fmt::format("01/{}.so.tmp{}.4", key, live), false);
  const fs::path dead_templates = leftover(fmt::format("host-templates/{}.tmp{}-77", key, dead), true);
  const fs::path entry = leftover(fmt::format("01/{}.so", key), false);

  // A request the host compiler refuses at once: the leftovers go as the build starts.
  compile_for_host(
      {CompileRequest{"gpu only", "kernel_templates/copy.cuh", "&exactune_kernels::copy_bytes", "sm_90", {}}}, cache,
      1);
  CHECK_FALSE(fs::exists(dead_build));
  CHECK_FALSE(fs::exists(dead_entry));
  CHECK_FALSE(fs::exists(dead_entry_of_old_exactune));
  CHECK_FALSE(fs::exists(dead_templates));
  CHECK(fs::exists(live_build / "kernels.cpp"));
  CHECK(fs::exists(live_entry));
  CHECK(fs::exists(entry));
}

TEST_CASE("a program run through run_process dies when the process that ran it is killed", "[cache_integrity]") {
  ScratchDirectory scratch("orphan");
  const fs::path pid_file = scratch.path() / "child.pid";
  // The starter runs a shell that tells its pid and then becomes a long sleep,
  // as a host build runs a compiler.
  const pid_t starter = ::fork();
  REQUIRE(starter >= 0);
  if (starter == 0) {
    try {
      host_exec::run_process(
          {"sh", "-c",
           fmt::format("echo $$ > '{0}.part' && mv '{0}.part' '{0}' && exec sleep 600", pid_file.string())});
    } catch (...) {
    }
    ::_exit(0);
  }
  const bool started = eventually([&] { return fs::exists(pid_file); });
  pid_t child = 0;
  if (started) std::ifstream(pid_file) >> child;
  const std::optional<std::string> child_start = child > 0 ? running_since(child) : std::nullopt;
  ::kill(starter, SIGKILL);
  ::waitpid(starter, nullptr, 0);
  REQUIRE(started);
  REQUIRE(child_start);

  const bool died = eventually([&] { return running_since(child) != child_start; });
  if (!died) ::kill(child, SIGKILL);
  CHECK(died);
}
