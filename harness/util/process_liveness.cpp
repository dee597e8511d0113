#include "util/process_liveness.hpp"

#include <fmt/format.h>
#include <signal.h>

#include <cerrno>
#include <fstream>
#include <string>

namespace exactune {

bool process_is_gone(pid_t pid) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  // A zombie still answers kill() but runs no more; its parent just has not reaped it.
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(stat, line)) return false;
  const std::size_t name_end = line.rfind(')');
  return name_end != std::string::npos && name_end + 2 < line.size() && line[name_end + 2] == 'Z';
}

}  // namespace exactune
