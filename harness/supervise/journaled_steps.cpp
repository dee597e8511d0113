#include "supervise/journaled_steps.hpp"

#include <fmt/format.h>
#include <unistd.h>

namespace exactune {

void JournaledSteps::begin(const std::string& step, std::chrono::milliseconds deadline) {
  if (channel_) channel_->begin(step, deadline);
}

void JournaledSteps::end(const std::string&) {
  if (channel_) channel_->idle();
}

void JournaledSteps::finish(const std::string& step, const nlohmann::json& record) {
  journal_.append(step, record);
  if (channel_) channel_->idle();
}

void JournaledSteps::after_failure() {
  if (!device_lost_) return;
  const std::string why = device_lost_();
  if (why.empty()) return;
  fmt::print(stderr, "\nexactune: the device can run nothing more in this worker ({})\n", why);
  std::fflush(stderr);
  std::fflush(stdout);
  // Not exit(): destructors would wait on the lost context. So sync the journal here.
  journal_.sync();
  ::_exit(channel_ ? kExitFreshWorker : 1);
}

}  // namespace exactune
