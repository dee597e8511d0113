// Runs the exactune binary as a user would, for the CLI tests; in the core's
// suite, also the CLI that knows the toy family alone (EXACTUNE_TOY_CLI).
#pragma once
#include <fmt/format.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "catch.hpp"

struct CliResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// `command` run by the shell, as written: for what run_cli cannot say (an
// environment variable, a descriptor of its own).
inline CliResult run_shell(const std::string& command) {
  CliResult r;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) r.output.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline CliResult run_cli(const std::string& args) { return run_shell(fmt::format("'{}' {}", EXACTUNE_CLI, args)); }

#ifdef EXACTUNE_TOY_CLI
inline CliResult run_toy_cli(const std::string& args) {
  return run_shell(fmt::format("'{}' {}", EXACTUNE_TOY_CLI, args));
}
#endif
