// Runs a program to its end and collects what it printed: how the host
// compiler is invoked, without a shell (no quoting of paths or flags). The
// program dies with the calling thread: a killed exactune leaves no compiler
// running (its own children, e.g. cc1plus, finish their file and exit). The
// fork and exec are util/child_process.hpp's.
#pragma once
#include <string>
#include <vector>

namespace exactune::host_exec {

struct ProcessResult {
  int exit_code = -1;  // the exit status, or 128 + the signal that ended it
  std::string output;  // stdout and stderr, interleaved as written
};

// argv[0] is looked up on PATH. Standard input is /dev/null. Throws
// exactune::error when the program cannot be started at all. Linux only
// (PR_SET_PDEATHSIG).
ProcessResult run_process(const std::vector<std::string>& argv);

}  // namespace exactune::host_exec
