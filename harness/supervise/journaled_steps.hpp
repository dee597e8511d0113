// The Steps of a worker: finished steps come from and go to its journal, each
// step is announced to the supervisor with its deadline, and a failure that
// lost the device ends the worker so that a fresh one continues.
#pragma once
#include <functional>
#include <string>

#include "supervise/journal.hpp"
#include "supervise/steps.hpp"
#include "supervise/worker_channel.hpp"

namespace exactune {

class JournaledSteps : public Steps {
 public:
  // `device_lost` says why the device can run nothing more ("" while it can).
  JournaledSteps(Journal& journal, SupervisorChannel* channel, std::function<std::string()> device_lost)
      : journal_(journal), channel_(channel), device_lost_(std::move(device_lost)) {}

  const StepOutcome* recorded(const std::string& step) const override { return journal_.find(step); }
  void begin(const std::string& step, std::chrono::milliseconds deadline) override;
  void end(const std::string& step) override;
  void finish(const std::string& step, const nlohmann::json& record) override;
  void after_failure() override;

 private:
  Journal& journal_;
  SupervisorChannel* channel_;
  std::function<std::string()> device_lost_;
};

}  // namespace exactune
