// The timing steps of a sweep on a GPU, one at a time: what every
// measurement of run_sweep goes through, so that a supervised sweep journals
// each one (supervise/steps.hpp) and a resumed one replays them.
#pragma once
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <string>

#include "supervise/steps.hpp"

namespace exactune {

// How a timing step ended: its record, or why it has none.
struct StepResult {
  nlohmann::json record;
  std::string failure;  // "" when the record is good
  bool ok() const { return failure.empty(); }
};

// Runs the sweep's timing steps: each one's record is computed here, or taken
// from the journal of a supervised sweep; a step that throws gets its failure
// as its record, so that one variant's error never ends the sweep.
class StepRunner {
 public:
  explicit StepRunner(Steps* steps) : steps_(steps) {}

  StepResult run(const std::string& step, std::chrono::milliseconds deadline,
                 const std::function<nlohmann::json()>& compute) const;

 private:
  Steps* steps_;  // null: an unsupervised sweep, every step computed
};

}  // namespace exactune
