// Runs a program to its end and collects what it printed: how the host
// compiler is invoked, without a shell (no quoting of paths or flags).
#pragma once
#include <string>
#include <vector>

namespace exactune::host_exec {

struct ProcessResult {
  int exit_code = -1;  // the exit status, or 128 + the signal that ended it
  std::string output;  // stdout and stderr, interleaved as written
};

// argv[0] is looked up on PATH. Standard input is /dev/null. Throws
// exactune::error when the program cannot be started at all.
ProcessResult run_process(const std::vector<std::string>& argv);

}  // namespace exactune::host_exec
