// The one fork/exec of exactune (util/child_process.hpp): what a child reports
// when it ends, where its streams go, the environment it gets and the parent
// keeps, the descriptors it inherits, the error when a program cannot run, and
// that starting hundreds of children never deadlocks while other threads
// allocate and set the environment: a child that allocated or took the
// environment's lock before exec would, sooner or later, wait for a lock that
// a thread of the parent held at the fork.
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "support/scratch_directory.hpp"
#include "util/child_process.hpp"
#include "util/file_descriptor.hpp"
#include "util/text_file.hpp"

namespace exactune {
namespace {

struct Ended {
  int status = 0;
  std::string output;  // stdout and stderr
};

// Runs `spec` to its end with its output in a file of `scratch`.
Ended run_to_end(ChildProcessSpec spec, const ScratchDirectory& scratch) {
  const std::filesystem::path file = scratch.path() / "output";
  const FileDescriptor output(::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  REQUIRE(output.get() >= 0);
  spec.output = output.get();
  Ended ended;
  ended.status = wait_for_child(start_child_process(spec));
  ended.output = read_text_file(file, "child output");
  return ended;
}

std::string error_of(const ChildProcessSpec& spec) {
  try {
    wait_for_child(start_child_process(spec));
  } catch (const error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST_CASE("a child's exit code and the signal that ended it come back to the parent", "[child_process]") {
  const int exited = wait_for_child(start_child_process({.argv = {"sh", "-c", "exit 3"}}));
  CHECK(WIFEXITED(exited));
  CHECK(WEXITSTATUS(exited) == 3);
  CHECK(exit_code_of(exited) == 3);

  const int killed = wait_for_child(start_child_process({.argv = {"sh", "-c", "kill -TERM $$"}}));
  CHECK(WIFSIGNALED(killed));
  CHECK(WTERMSIG(killed) == SIGTERM);
  CHECK(exit_code_of(killed) == 128 + SIGTERM);
}

TEST_CASE("a child writes stdout and stderr where the parent says and reads /dev/null", "[child_process]") {
  ScratchDirectory scratch("child-output");
  const Ended ended = run_to_end(
      {.argv = {"sh", "-c", "echo out; echo err >&2; readlink /proc/self/fd/0"}, .input_from_dev_null = true}, scratch);
  CHECK(exit_code_of(ended.status) == 0);
  CHECK(ended.output == "out\nerr\n/dev/null\n");
}

TEST_CASE("a child gets the environment it is given, and the parent keeps its own", "[child_process]") {
  ScratchDirectory scratch("child-environment");
  REQUIRE(::setenv("EXACTUNE_CHILD_PROCESS_CHANGED", "parent", 1) == 0);
  REQUIRE(::unsetenv("EXACTUNE_CHILD_PROCESS_ADDED") == 0);
  const Ended ended = run_to_end(
      {.argv = {"sh", "-c", "env | grep '^EXACTUNE_CHILD_PROCESS_' | sort"},
       .environment = {{"EXACTUNE_CHILD_PROCESS_CHANGED", "child"}, {"EXACTUNE_CHILD_PROCESS_ADDED", "added"}}},
      scratch);
  CHECK(ended.output == "EXACTUNE_CHILD_PROCESS_ADDED=added\nEXACTUNE_CHILD_PROCESS_CHANGED=child\n");
  CHECK(std::string(std::getenv("EXACTUNE_CHILD_PROCESS_CHANGED")) == "parent");
  CHECK(std::getenv("EXACTUNE_CHILD_PROCESS_ADDED") == nullptr);

  const Ended unchanged = run_to_end({.argv = {"sh", "-c", "printf %s \"$EXACTUNE_CHILD_PROCESS_CHANGED\""}}, scratch);
  CHECK(unchanged.output == "parent");
  ::unsetenv("EXACTUNE_CHILD_PROCESS_CHANGED");
}

TEST_CASE("a program that cannot run is an exactune::error naming it, and its child is reaped", "[child_process]") {
  ScratchDirectory scratch("child-missing");
  // Looked up on PATH in the parent.
  CHECK(error_of({.argv = {"exactune-no-such-program"}}) ==
        fmt::format("cannot run 'exactune-no-such-program': {}", std::strerror(ENOENT)));
  // Found by execve, in the child, which reports its errno.
  const std::string not_executable = (scratch.path() / "not-executable").string();
  write_text_file(not_executable, "#!/bin/sh\n");
  REQUIRE(::chmod(not_executable.c_str(), 0644) == 0);
  CHECK(error_of({.argv = {not_executable}}) ==
        fmt::format("cannot run '{}': {}", not_executable, std::strerror(EACCES)));
  CHECK(error_of({.argv = {"worker"}, .program = "/no/such/folder/program"}) ==
        fmt::format("cannot run 'worker' (/no/such/folder/program): {}", std::strerror(ENOENT)));
  errno = 0;
  CHECK(::waitpid(-1, nullptr, WNOHANG) == -1);
  CHECK(errno == ECHILD);
}

TEST_CASE("a child inherits its standard streams and the descriptors kept, no other", "[child_process]") {
  ScratchDirectory scratch("child-descriptors");
  // Above every descriptor the test opens, so that ls's own handle on the folder cannot take either number.
  const FileDescriptor null(::open("/dev/null", O_RDONLY));
  const FileDescriptor leaked(::fcntl(null.get(), F_DUPFD, 200));  // not close-on-exec
  Pipe pipe = make_pipe();
  const FileDescriptor kept(::fcntl(pipe.write_end.get(), F_DUPFD_CLOEXEC, 201));
  REQUIRE(leaked.get() >= 200);
  REQUIRE(kept.get() >= 201);
  const Ended ended = run_to_end(
      {.argv = {"ls", "-1", "/proc/self/fd"}, .input_from_dev_null = true, .kept_descriptors = {kept.get()}}, scratch);
  REQUIRE(exit_code_of(ended.status) == 0);
  std::set<int> open;
  std::istringstream lines(ended.output);
  for (int fd; lines >> fd;) open.insert(fd);
  INFO("descriptors open in the child: " << ended.output);
  for (const int fd : {0, 1, 2, kept.get()}) CHECK(open.erase(fd) == 1);
  CHECK(open.count(leaked.get()) == 0);
  CHECK(open.size() == 1);  // ls's handle on /proc/self/fd
}

// Starts `children` children that each check the variable they were given,
// while `threads` other threads allocate and free and one sets a variable of
// the environment, and fails if they have not all ended after a deadline (a
// child stuck on a lock never execs, and its parent waits on it forever).
TEST_CASE("hundreds of children start while other threads allocate and set the environment", "[child_process]") {
  constexpr int kStarters = 2, kChildrenEach = 150, kAllocators = 2;
  // Set before any thread starts: setenv then only replaces a value, and the
  // array of the environment, which each start copies, stays where it is.
  REQUIRE(::setenv("EXACTUNE_CHILD_PROCESS_CHURN", "a", 1) == 0);

  std::atomic<bool> stop{false};
  std::vector<std::thread> busy;
  for (int t = 0; t < kAllocators; ++t) {
    busy.emplace_back([&stop, t] {
      std::vector<std::unique_ptr<char[]>> blocks(64);
      for (std::size_t i = static_cast<std::size_t>(t); !stop.load(std::memory_order_relaxed); ++i) {
        blocks[i % blocks.size()] = std::make_unique<char[]>(16 + (i * 7919) % 65536);
        std::string text(i % 300, 'x');
        blocks[(i * 31) % blocks.size()].reset();
      }
    });
  }
  busy.emplace_back([&stop] {
    for (unsigned i = 0; !stop.load(std::memory_order_relaxed); ++i) {
      ::setenv("EXACTUNE_CHILD_PROCESS_CHURN", i % 2 ? "a" : "b", 1);
      (void)std::getenv("PATH");
    }
  });

  // Shared with the starters, which a deadlock leaves behind: they end with the process.
  struct Starts {
    std::mutex mutex;
    std::condition_variable done;
    int starters_done = 0;
    int children_passed = 0;
    std::vector<std::string> failures;
  };
  const auto starts = std::make_shared<Starts>();
  for (int s = 0; s < kStarters; ++s) {
    std::thread([starts] {
      for (int i = 0; i < kChildrenEach; ++i) {
        std::string failure;
        try {
          const int status =
              wait_for_child(start_child_process({.argv = {"sh", "-c", "test \"$EXACTUNE_CHILD_PROCESS_MARK\" = given"},
                                                  .environment = {{"EXACTUNE_CHILD_PROCESS_MARK", "given"}}}));
          if (exit_code_of(status) != 0) failure = fmt::format("a child exited {}", exit_code_of(status));
        } catch (const error& e) {
          failure = e.what();
        }
        const std::lock_guard<std::mutex> lock(starts->mutex);
        if (failure.empty()) {
          ++starts->children_passed;
        } else {
          starts->failures.push_back(failure);
        }
      }
      const std::lock_guard<std::mutex> lock(starts->mutex);
      ++starts->starters_done;
      starts->done.notify_all();
    }).detach();
  }

  bool all_ended;
  {
    std::unique_lock<std::mutex> lock(starts->mutex);
    all_ended =
        starts->done.wait_for(lock, std::chrono::seconds(60), [&] { return starts->starters_done == kStarters; });
  }
  stop = true;
  for (std::thread& thread : busy) thread.join();
  ::unsetenv("EXACTUNE_CHILD_PROCESS_CHURN");
  const std::lock_guard<std::mutex> lock(starts->mutex);
  INFO(starts->children_passed << " children passed; first failure: "
                               << (starts->failures.empty() ? "none" : starts->failures.front()));
  if (!all_ended) FAIL("children still not started after 60 s: a child deadlocked between fork and exec");
  CHECK(starts->failures.empty());
  CHECK(starts->children_passed == kStarters * kChildrenEach);
}

}  // namespace
}  // namespace exactune
