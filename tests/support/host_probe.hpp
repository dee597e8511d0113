// Compiling and running a small program with the system's C++ compiler, for
// the tests of the C++ exactune writes for others to build (the generated
// headers, the fixed C++ they paste): it must compile as strict C++17, free of
// warnings, with a compiler other than exactune's own build. Also the file and
// shell helpers such tests share.
#pragma once
#include <fmt/format.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"

namespace host_probe {

namespace fs = std::filesystem;

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_text(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Runs a shell command with its output to a file; the exit code and the output.
inline std::pair<int, std::string> run_shell(const std::string& command, const fs::path& log) {
  const int status = std::system(fmt::format("{} > '{}' 2>&1", command, log.string()).c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(log)};
}

// A file the probe includes: its path relative to the probe's folder, and its text.
struct ProbeFile {
  std::string path;
  std::string text;
};

// Compiles `source` with `files` beside it (each at its relative path, which
// the source includes) as strict C++17 with the host compiler and
// `extra_flags`, runs it, and returns what it printed.
inline std::string compile_and_run(const fs::path& dir, const std::vector<ProbeFile>& files, const std::string& source,
                                   const std::string& extra_flags = "") {
  for (const ProbeFile& file : files) {
    fs::create_directories((dir / file.path).parent_path());
    write_text(dir / file.path, file.text);
  }
  write_text(dir / "probe.cpp", source);
  const std::string compiler =
      fmt::format("c++ -std=c++17 -Wall -Wextra -pedantic -Werror {1} -I'{0}' '{0}/probe.cpp' -o '{0}/probe'",
                  dir.string(), extra_flags);
  const auto [compiled, compile_log] = run_shell(compiler, dir / "compile.log");
  INFO(compile_log);
  REQUIRE(compiled == 0);
  const auto [ran, output] = run_shell(fmt::format("'{}/probe'", dir.string()), dir / "run.log");
  REQUIRE(ran == 0);
  return output;
}

}  // namespace host_probe
