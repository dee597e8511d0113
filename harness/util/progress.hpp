// Progress of a long stage on stderr: a self-rewriting line when stderr is a
// terminal, a plain line every few seconds (and at the end) when it is not.
#pragma once
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace exactune {

class Progress {
 public:
  Progress(std::string stage, std::size_t total, bool enabled = true);
  ~Progress();
  void advance(std::size_t done, const std::string& detail = {});
  void finish();

 private:
  std::string stage_;
  std::size_t total_;
  bool enabled_;
  bool terminal_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_print_;
  std::size_t done_ = 0;
  std::mutex mutex_;
  void print(const std::string& detail, bool final_line);
};

}  // namespace exactune
