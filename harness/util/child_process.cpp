// fork() and exec for child_process.hpp. The parent builds a PreparedChild
// (path, argv, envp, descriptors); the child only reads it between fork() and
// execve, through system calls, and reports the errno of a step that failed
// on a close-on-exec pipe that the parent reads until exec closes it.
#include "util/child_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string_view>

#include <exactune/error.hpp>

#include "util/file_descriptor.hpp"

#ifndef CLOSE_RANGE_CLOEXEC  // glibc before 2.34
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

extern char** environ;

namespace exactune {

namespace {

// The exit of a child that could not become its program, as a shell's; the
// parent throws instead of reporting it.
constexpr int kExitNotExecuted = 127;

bool is_executable_file(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// The file to execute: `program` looked up on PATH as execvp would, here
// rather than in the child; empty when there is none.
std::string resolve_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::istringstream directories(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string directory; std::getline(directories, directory, ':');) {
    const std::string candidate = (directory.empty() ? std::string(".") : directory) + "/" + program;
    if (is_executable_file(candidate)) return candidate;
  }
  return "";
}

// This process's environment, less the variables the child gets its own value of, and those values.
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& changes) {
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    const bool changed = std::any_of(changes.begin(), changes.end(), [&](const auto& c) { return c.first == name; });
    if (!changed) entries.emplace_back(text);
  }
  for (const auto& [name, value] : changes) entries.push_back(name + "=" + value);
  return entries;
}

std::vector<char*> null_terminated(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

// The highest descriptor this process may have open: where marking descriptors
// close-on-exec one by one stops, on a kernel without close_range (before 5.11).
int highest_descriptor() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return INT_MAX - 1;
  return static_cast<int>(std::min<rlim_t>(limit.rlim_cur, INT_MAX) - 1);
}

// Everything the child reads between fork() and exec, built before fork().
struct PreparedChild {
  std::string shown;  // how errors name the program: 'argv[0]', and the file run when it is another
  std::string path;
  std::vector<std::string> arguments, environment;
  std::vector<char*> argv, envp;
  FileDescriptor input;
  int output = -1;
  std::vector<int> kept;
  int highest = 2;
  pid_t parent = -1;
};

void prepare(const ChildProcessSpec& spec, PreparedChild& child) {
  if (spec.argv.empty()) throw error("cannot start a child process: no program given");
  const std::string& program = spec.program.empty() ? spec.argv[0] : spec.program;
  child.shown =
      program == spec.argv[0] ? fmt::format("'{}'", program) : fmt::format("'{}' ({})", spec.argv[0], program);
  child.path = resolve_program(program);
  if (child.path.empty()) throw error(fmt::format("cannot run {}: {}", child.shown, std::strerror(ENOENT)));
  child.arguments = spec.argv;
  child.argv = null_terminated(child.arguments);
  child.environment = child_environment(spec.environment);
  child.envp = null_terminated(child.environment);
  if (spec.input_from_dev_null) {
    child.input = FileDescriptor(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (child.input.get() < 0) throw error(fmt::format("cannot open /dev/null: {}", std::strerror(errno)));
  }
  child.output = spec.output;
  child.kept = spec.kept_descriptors;
  child.highest = highest_descriptor();
  child.parent = ::getpid();
}

// ---- the child's side: system calls only, no allocation, no lock.

// Sends errno to the parent, which throws it, and ends the child.
[[noreturn]] void report_failure(int status) {
  const int code = errno;
  (void)!::write(status, &code, sizeof code);
  ::_exit(kExitNotExecuted);
}

// `from` as descriptor `to`, open across exec (dup2 onto itself would leave
// close-on-exec set).
bool place(int from, int to) {
  if (from == to) return ::fcntl(to, F_SETFD, 0) == 0;
  return ::dup2(from, to) == to;
}

// Every descriptor above stderr, whoever opened it and however, closes at exec.
void close_all_on_exec(int highest) {
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
#endif
  for (int fd = 3; fd <= highest; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // EBADF where none is open
}

// The getppid() check covers a parent that ended before prctl took effect.
[[noreturn]] void become_program(const PreparedChild& child, int status) {
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != child.parent) ::_exit(kExitNotExecuted);
  if (child.input.get() >= 0 && !place(child.input.get(), STDIN_FILENO)) report_failure(status);
  if (child.output >= 0 && (!place(child.output, STDOUT_FILENO) || !place(child.output, STDERR_FILENO))) {
    report_failure(status);
  }
  close_all_on_exec(child.highest);
  for (const int fd : child.kept) {
    if (::fcntl(fd, F_SETFD, 0) != 0) report_failure(status);
  }
  ::execve(child.path.c_str(), child.argv.data(), child.envp.data());
  report_failure(status);
}

}  // namespace

pid_t start_child_process(const ChildProcessSpec& spec) {
  PreparedChild child;
  prepare(spec, child);
  Pipe exec_status = make_pipe();
  const pid_t pid = ::fork();
  if (pid < 0) throw error(fmt::format("cannot run {}: fork failed: {}", child.shown, std::strerror(errno)));
  if (pid == 0) become_program(child, exec_status.write_end.get());
  exec_status.write_end.reset();

  int exec_errno = 0;
  ssize_t got;
  while ((got = ::read(exec_status.read_end.get(), &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    wait_for_child(pid);
    throw error(fmt::format("cannot run {}: {}", child.shown, std::strerror(exec_errno)));
  }
  return pid;
}

int wait_for_child(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

int exit_code_of(int wait_status) {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

}  // namespace exactune
