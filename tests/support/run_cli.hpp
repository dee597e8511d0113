// Runs the exactune binary as a user would, for the CLI tests.
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

inline CliResult run_cli(const std::string& args) {
  CliResult r;
  FILE* pipe = ::popen(fmt::format("'{}' {} 2>&1", EXACTUNE_CLI, args).c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) r.output.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}
