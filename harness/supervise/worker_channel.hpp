// The worker's side of supervision (supervisor.hpp): a pipe to the supervisor
// that says where the journal is and which step is running with what deadline.
// A process is a worker when the supervisor started it: it finds the pipe in
// $EXACTUNE_SUPERVISOR_FD.
#pragma once
#include <chrono>
#include <filesystem>
#include <string>

namespace exactune {

// The exit of a worker whose device is lost (a sticky GPU fault): its record is
// in the journal, and the supervisor starts a fresh worker to continue.
constexpr int kExitFreshWorker = 75;

class SupervisorChannel {
 public:
  // This process's channel, or nullptr when no supervisor started it.
  static SupervisorChannel* of_this_process();
  // True when this worker continues the journal of one that crashed or hung.
  bool continues_a_crashed_worker() const { return continues_; }

  void journal(const std::filesystem::path& path);
  void begin(const std::string& step, std::chrono::milliseconds deadline);
  void idle();

 private:
  SupervisorChannel(int fd, bool continues) : fd_(fd), continues_(continues) {}
  void send(const std::string& line);

  int fd_;
  bool continues_;
};

}  // namespace exactune
