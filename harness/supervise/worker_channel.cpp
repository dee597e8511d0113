#include "supervise/worker_channel.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>

namespace exactune {

SupervisorChannel* SupervisorChannel::of_this_process() {
  static const std::unique_ptr<SupervisorChannel> channel = []() -> std::unique_ptr<SupervisorChannel> {
    const char* fd = std::getenv("EXACTUNE_SUPERVISOR_FD");
    if (fd == nullptr || *fd == '\0') return nullptr;
    const char* continues = std::getenv("EXACTUNE_WORKER_CONTINUES");
    return std::unique_ptr<SupervisorChannel>(
        new SupervisorChannel(std::atoi(fd), continues != nullptr && std::string(continues) == "1"));
  }();
  return channel.get();
}

void SupervisorChannel::send(const std::string& line) {
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;  // the supervisor is gone; PR_SET_PDEATHSIG ends this worker
    written += static_cast<std::size_t>(n);
  }
}

void SupervisorChannel::journal(const std::filesystem::path& path) { send(fmt::format("journal {}\n", path.string())); }

void SupervisorChannel::begin(const std::string& step, std::chrono::milliseconds deadline) {
  send(fmt::format("begin {} {}\n", deadline.count(), step));
}

void SupervisorChannel::idle() { send("idle\n"); }

}  // namespace exactune
