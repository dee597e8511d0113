// run_process: a child started by util/child_process.hpp with its output on a
// pipe, read here until the program ends.
#include "util/subprocess.hpp"

#include <unistd.h>

#include <cerrno>

#include "util/child_process.hpp"
#include "util/file_descriptor.hpp"

namespace exactune::host_exec {

ProcessResult run_process(const std::vector<std::string>& argv) {
  Pipe output = make_pipe();
  const pid_t pid = start_child_process({.argv = argv, .input_from_dev_null = true, .output = output.write_end.get()});
  output.write_end.reset();

  ProcessResult result;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(output.read_end.get(), buffer, sizeof buffer);
    if (n > 0) {
      result.output.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  result.exit_code = exit_code_of(wait_for_child(pid));
  return result;
}

}  // namespace exactune::host_exec
