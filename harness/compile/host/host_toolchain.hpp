// The system C++ compiler that builds kernel templates for the CPU: which one,
// its version, and the flags that keep host arithmetic IEEE-exact.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "util/subprocess.hpp"

namespace exactune::host_exec {

struct HostToolchain {
  std::vector<std::string> command;  // $CXX split on spaces (e.g. "ccache g++"), else {"c++"}
  std::string version;               // what `--version` printed
  std::vector<std::string> flags;    // fixed for every kernel compile

  // Everything about the toolchain that can change a kernel's bits: part of every cache key.
  std::string identity() const;
};

// The compiler named by $CXX, else `c++`. Throws exactune::error saying how to
// provide one when it cannot be run. Looked up once per $CXX value.
const HostToolchain& host_toolchain();

struct SharedObjectBuild {
  std::filesystem::path source;                     // the translation unit
  std::filesystem::path output;                     // the .so to write
  std::vector<std::filesystem::path> include_dirs;  // -I
  std::vector<std::string> defines;                 // "NAME=VALUE" or "NAME": -D
};

// Runs the compiler; the result's output starts with the command line.
ProcessResult build_shared_object(const HostToolchain& toolchain, const SharedObjectBuild& build);

}  // namespace exactune::host_exec
