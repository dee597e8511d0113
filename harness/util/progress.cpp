#include "util/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace exactune {

Progress::Progress(std::string stage, std::size_t total, bool enabled)
    : stage_(std::move(stage)),
      total_(total),
      enabled_(enabled),
      terminal_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

Progress::~Progress() { finish(); }

void Progress::advance(std::size_t done, const std::string& detail) {
  std::lock_guard lock(mutex_);
  done_ = done;
  const auto now = std::chrono::steady_clock::now();
  const auto interval = terminal_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(5000);
  if (done_ < total_ && now - last_print_ < interval) return;
  last_print_ = now;
  print(detail, false);
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  finished_ = true;
  print({}, true);
}

void Progress::print(const std::string& detail, bool final_line) {
  if (!enabled_ || total_ == 0) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string eta;
  if (done_ > 0 && done_ < total_) eta = fmt::format(", ETA {:.0f} s", elapsed / done_ * (total_ - done_));
  const std::string line = fmt::format("[{}] {}/{} ({:.0f}%), {:.1f} s elapsed{}{}{}", stage_, done_, total_,
                                       100.0 * done_ / total_, elapsed, eta, detail.empty() ? "" : ": ", detail);
  if (terminal_) {
    fmt::print(stderr, "\r\033[2K{}{}", line.substr(0, 160), final_line ? "\n" : "");
  } else if (final_line || done_ < total_) {
    fmt::print(stderr, "{}\n", line);
  }
  std::fflush(stderr);
}

}  // namespace exactune
