// The timing steps of a sweep on a GPU, one at a time: what every
// measurement of run_sweep goes through, so that a supervised sweep journals
// each one (supervise/steps.hpp) and a resumed one replays them.
#pragma once
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

#include "supervise/steps.hpp"

namespace exactune {

// How a timing step ended: its record, or why it has none.
struct StepResult {
  std::string step;
  nlohmann::json record;
  std::string failure;  // "" when the record is good
  std::string where;    // "<journal>:<line>" of a journaled record; "" of one just measured
  bool ok() const { return failure.empty(); }

  // The record's value under `keys`, outermost first. The journal checked each
  // record's types as it read it; what this sweep needs of one (its policy's
  // regimes, the variants of a noise pass) only the sweep knows: a journaled
  // record without it is refused where it is kept.
  const nlohmann::json& entry(std::initializer_list<std::string_view> keys) const;
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
