#include "supervise/supervisor.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <exactune/error.hpp>

#include "supervise/journal.hpp"
#include "supervise/worker_channel.hpp"
#include "util/child_process.hpp"
#include "util/file_descriptor.hpp"

namespace exactune {

std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  if (args.empty()) throw error("cannot read this process's command line (/proc/self/cmdline)");
  return args;
}

namespace {

using Clock = std::chrono::steady_clock;

struct Worker {
  pid_t pid = -1;
  FileDescriptor pipe;
};

// The worker dies with its supervisor: a killed command leaves no kernels
// running. It finds the write end of its pipe in $EXACTUNE_SUPERVISOR_FD.
Worker start_worker(const std::vector<std::string>& args, bool continues) {
  Pipe channel = make_pipe();
  const int worker_end = channel.write_end.get();
  const pid_t pid = start_child_process({.argv = args,
                                         .program = "/proc/self/exe",
                                         .environment = {{"EXACTUNE_SUPERVISOR_FD", std::to_string(worker_end)},
                                                         {"EXACTUNE_WORKER_CONTINUES", continues ? "1" : "0"}},
                                         .kept_descriptors = {worker_end}});
  return Worker{pid, std::move(channel.read_end)};
}

std::string signal_name(int signal) {
  const char* abbreviation = ::sigabbrev_np(signal);
  return fmt::format("SIG{} ({})", abbreviation ? abbreviation : std::to_string(signal), ::strsignal(signal));
}

// What one worker did before it ended.
struct WorkerEnd {
  int status = 0;
  bool hung = false;
  std::string step;  // the step it was in, "" when between steps
  std::chrono::milliseconds deadline{0};
};

// Reads the worker's announcements until it ends or overruns a step's deadline.
WorkerEnd watch(Worker worker, std::optional<std::string>& journal) {
  WorkerEnd end;
  std::optional<Clock::time_point> due;
  std::string pending;
  for (;;) {
    int timeout_ms = -1;
    if (due) {
      timeout_ms = static_cast<int>(
          std::max<long long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(*due - Clock::now()).count()));
    }
    pollfd fd{worker.pipe.get(), POLLIN, 0};
    const int ready = ::poll(&fd, 1, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {  // past the deadline
      ::kill(worker.pid, SIGKILL);
      end.hung = true;
      break;
    }
    char buffer[4096];
    const ssize_t n = ::read(worker.pipe.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the worker ended
    pending.append(buffer, static_cast<std::size_t>(n));
    for (std::size_t newline; (newline = pending.find('\n')) != std::string::npos; pending.erase(0, newline + 1)) {
      std::istringstream line(pending.substr(0, newline));
      std::string verb;
      line >> verb;
      if (verb == "journal") {
        std::string path;
        std::getline(line >> std::ws, path);
        journal = path;
      } else if (verb == "begin") {
        long long ms = 0;
        line >> ms;
        std::getline(line >> std::ws, end.step);
        end.deadline = std::chrono::milliseconds(ms);
        due = Clock::now() + end.deadline;
      } else if (verb == "idle") {
        end.step.clear();
        due.reset();
      }
    }
  }
  worker.pipe.reset();
  end.status = wait_for_child(worker.pid);
  return end;
}

}  // namespace

int supervise_this_command() {
  const std::vector<std::string> args = own_command_line();
  std::optional<std::string> journal;
  std::string last_crashed_step;
  for (bool continues = false;; continues = true) {
    const WorkerEnd end = watch(start_worker(args, continues), journal);
    std::string crash, message;
    if (end.hung) {
      crash = "hung";
      message = fmt::format("ran past its deadline of {:.1f} s and was killed",
                            std::chrono::duration<double>(end.deadline).count());
    } else if (WIFSIGNALED(end.status)) {
      crash = "failed";
      message = fmt::format("the worker died of {}", signal_name(WTERMSIG(end.status)));
    } else if (WIFEXITED(end.status) && WEXITSTATUS(end.status) == kExitFreshWorker) {
      fmt::print(stderr, "exactune: a fresh worker continues in a fresh context\n");
      continue;
    } else {
      return WIFEXITED(end.status) ? WEXITSTATUS(end.status) : 1;
    }
    if (end.step.empty() || !journal) {
      fmt::print(stderr, "exactune: the worker {} outside any step{}\n", end.hung ? "hung" : message.substr(11),
                 journal ? fmt::format("; {} keeps every finished step: run again with --resume", *journal) : "");
      return 1;
    }
    if (end.step == last_crashed_step) {
      fmt::print(stderr, "exactune: {} crashed twice: the journal {} did not take its crash; stopping\n", end.step,
                 *journal);
      return 1;
    }
    last_crashed_step = end.step;
    if (Journal::append_crash(*journal, end.step, crash, message)) {
      fmt::print(stderr, "\nexactune: {} {}: {}; a fresh worker continues\n", end.step, crash, message);
    } else {
      fmt::print(stderr, "\nexactune: the worker {} just after it journaled {}; a fresh worker continues\n",
                 crash == "hung" ? "was killed at its deadline" : message.substr(11), end.step);
    }
  }
}

}  // namespace exactune
