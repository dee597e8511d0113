#include "util/subprocess.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include <exactune/error.hpp>

namespace exactune::host_exec {

namespace {

// Closes a descriptor when it goes out of scope.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  ~FileDescriptor() { reset(); }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }
  void adopt(int fd) {
    reset();
    fd_ = fd;
  }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// O_CLOEXEC: a child spawned concurrently by another thread must not inherit
// the write end, or a read would wait for that child too.
struct Pipe {
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
    read_end.adopt(fds[0]);
    write_end.adopt(fds[1]);
  }
  FileDescriptor read_end, write_end;
};

bool is_executable_file(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// argv[0] looked up on PATH as execvp would, here rather than in the child:
// between fork and exec a child of a threaded process may only make system calls.
std::string resolve_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::istringstream directories(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string directory; std::getline(directories, directory, ':');) {
    const std::string candidate = (directory.empty() ? std::string(".") : directory) + "/" + program;
    if (is_executable_file(candidate)) return candidate;
  }
  throw error(fmt::format("cannot run '{}': {}", program, std::strerror(ENOENT)));
}

// Between fork and exec: async-signal-safe calls only. The child dies with the
// thread that forked it (PR_SET_PDEATHSIG), which waits for it, so a killed
// exactune leaves no compiler running; the getppid() check covers a parent that
// died before prctl took effect. An exec failure goes back as errno on `status`.
[[noreturn]] void become_program(const std::string& program, char* const* argv, pid_t parent, int input, int output,
                                 int status) {
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
  if (::dup2(input, 0) < 0 || ::dup2(output, 1) < 0 || ::dup2(output, 2) < 0) {
    const int e = errno;
    (void)!::write(status, &e, sizeof e);
    ::_exit(127);
  }
  ::execv(program.c_str(), argv);
  const int e = errno;
  (void)!::write(status, &e, sizeof e);
  ::_exit(127);
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv) {
  if (argv.empty()) throw error("run_process: no program given");
  const std::string program = resolve_program(argv[0]);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  FileDescriptor input(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (input.get() < 0) throw error(fmt::format("cannot open /dev/null: {}", std::strerror(errno)));
  Pipe output;
  Pipe exec_status;

  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw error(fmt::format("cannot run '{}': fork failed: {}", argv[0], std::strerror(errno)));
  if (pid == 0) {
    become_program(program, args.data(), parent, input.get(), output.write_end.get(), exec_status.write_end.get());
  }
  input.reset();
  output.write_end.reset();
  exec_status.write_end.reset();

  int exec_errno = 0;
  ssize_t got;
  while ((got = ::read(exec_status.read_end.get(), &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    wait_for(pid);
    throw error(fmt::format("cannot run '{}': {}", argv[0], std::strerror(exec_errno)));
  }

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
  result.exit_code = wait_for(pid);
  return result;
}

}  // namespace exactune::host_exec
