// A timing step, computed or replayed from the journal (step_runner.hpp).
#include "sweep/step_runner.hpp"

#include <exception>

namespace exactune {

StepResult StepRunner::run(const std::string& step, std::chrono::milliseconds deadline,
                           const std::function<nlohmann::json()>& compute) const {
  if (const StepOutcome* earlier = steps_ ? steps_->recorded(step) : nullptr) {
    if (earlier->crashed()) return {{}, earlier->crash_description()};
    return {earlier->record, earlier->record.value("failure", "")};
  }
  if (steps_) steps_->begin(step, deadline);
  StepResult result;
  try {
    result.record = compute();
  } catch (const std::exception& e) {
    result.failure = e.what();
    result.record = {{"failure", result.failure}};
  }
  if (steps_) {
    steps_->finish(step, result.record);
    if (!result.ok()) steps_->after_failure();
  }
  return result;
}

}  // namespace exactune
