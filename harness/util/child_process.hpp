// Starting a program in a child process from a process that has threads: the
// one fork/exec of exactune, behind the supervisor's worker, the device
// fleet's child sweeps and the host compiler (util/subprocess.hpp).
// Between fork() and exec the child holds a copy of every lock another thread
// held at the fork, never to be released: the allocator's, the environment's.
// So everything the child needs (the program's path, argv, the environment,
// the descriptors) is built before fork(), and the child makes system calls
// only: prctl, dup2, fcntl, close_range, execve, write, _exit.
//   - The child dies with the thread that started it (PR_SET_PDEATHSIG): a
//     killed exactune leaves no worker, sweep or compiler running.
//   - It inherits no descriptor but its standard streams and those kept.
//   - An exec that fails comes back to the parent over a close-on-exec pipe,
//     and start_child_process throws it there.
// Linux only.
#pragma once
#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace exactune {

struct ChildProcessSpec {
  // argv[0] names the program, looked up on this process's PATH as execvp
  // would when it has no '/'.
  std::vector<std::string> argv;
  // The file to run when it is not argv[0] (e.g. /proc/self/exe); empty: argv[0].
  std::string program{};
  // Variables the child gets, each over the same name of this process's
  // environment, which itself is left as it is.
  std::vector<std::pair<std::string, std::string>> environment{};
  bool input_from_dev_null = false;  // else this process's standard input
  int output = -1;                   // a descriptor that takes stdout and stderr both; -1: this process's own
  // Descriptors the child keeps open under the same numbers (above stderr).
  std::vector<int> kept_descriptors{};
};

// Starts the child and returns its pid, for wait_for_child (or kill). Throws
// exactune::error naming the program when it cannot be found, forked or
// executed; the child of a failed exec (exit 127) is reaped before the throw.
pid_t start_child_process(const ChildProcessSpec& spec);

// Waits for the child to end and returns its wait status (<sys/wait.h>).
int wait_for_child(pid_t pid);

// A wait status as a shell reports it: the exit code, or 128 + the signal that ended it.
int exit_code_of(int wait_status);

}  // namespace exactune
