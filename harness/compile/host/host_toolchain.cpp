#include "compile/host/host_toolchain.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>

#include <exactune/error.hpp>

namespace exactune::host_exec {

namespace {

// Kernel templates rely on every float operation being rounded on its own:
// no contraction into FMAs, no fast-math. -fno-strict-aliasing because CUDA
// sources reinterpret element pointers as vector types, which nvcc tolerates.
// Hidden visibility keeps each shared object's runtime (thread_local shared
// memory, stack pools) its own; only the launchers are exported. -O1: the CPU
// runs a few rows per variant, so compile time is what counts (a third less than
// -O2 for the fused template), and no optimisation level changes a rounding.
std::vector<std::string> kernel_flags() {
  std::vector<std::string> flags = {
      "-O1",
      "-std=c++17",
      "-fPIC",
      "-shared",
      "-ffp-contract=off",
      "-fno-fast-math",
      "-fno-strict-aliasing",
      "-fvisibility=hidden",
      "-pthread",
  };
#if defined(__x86_64__)
  // The fibers' hand-written stack switch (kernel_templates/host_cuda_simulator.hpp)
  // returns into another stack, which a CET shadow stack would reject: do not
  // mark the library shadow-stack safe (compilers that default to
  // -fcf-protection, e.g. Ubuntu's, would).
  flags.push_back("-fcf-protection=none");
#endif
  return flags;
}

std::vector<std::string> compiler_command() {
  std::vector<std::string> command;
  if (const char* cxx = std::getenv("CXX"); cxx && *cxx) {
    std::istringstream words(cxx);
    for (std::string word; words >> word;) command.push_back(word);
  }
  if (command.empty()) command.push_back("c++");
  return command;
}

HostToolchain probe(std::vector<std::string> command) {
  std::vector<std::string> argv = command;
  argv.push_back("--version");
  const std::string shown = fmt::format("{}", fmt::join(command, " "));
  ProcessResult result;
  try {
    result = run_process(argv);
  } catch (const error& e) {
    throw error(fmt::format("no host C++ compiler for CPU kernel execution ({}); install g++ or set $CXX", e.what()));
  }
  if (result.exit_code != 0) {
    throw error(fmt::format("the host C++ compiler '{}' failed on --version (exit {}): {}; set $CXX to a working one",
                            shown, result.exit_code, result.output));
  }
  return HostToolchain{std::move(command), std::move(result.output), kernel_flags()};
}

}  // namespace

std::string HostToolchain::identity() const {
  return fmt::format("{}\n{}\n{}", fmt::join(command, " "), version, fmt::join(flags, " "));
}

const HostToolchain& host_toolchain() {
  static std::mutex mutex;
  static std::map<std::vector<std::string>, HostToolchain> probed;
  std::vector<std::string> command = compiler_command();
  std::lock_guard<std::mutex> lock(mutex);
  auto found = probed.find(command);
  if (found == probed.end()) found = probed.emplace(command, probe(command)).first;
  return found->second;
}

ProcessResult build_shared_object(const HostToolchain& toolchain, const SharedObjectBuild& build) {
  std::vector<std::string> argv = toolchain.command;
  argv.insert(argv.end(), toolchain.flags.begin(), toolchain.flags.end());
  for (const auto& dir : build.include_dirs) argv.push_back("-I" + dir.string());
  for (const std::string& define : build.defines) argv.push_back("-D" + define);
  argv.insert(argv.end(), {"-o", build.output.string(), build.source.string()});
  ProcessResult result = run_process(argv);
  result.output = fmt::format("$ {}\n{}", fmt::join(argv, " "), result.output);
  return result;
}

}  // namespace exactune::host_exec
