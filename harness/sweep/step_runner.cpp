// A timing step, computed or replayed from the journal (step_runner.hpp).
#include "sweep/step_runner.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <exception>

#include <exactune/error.hpp>

#include "verify/verify_records.hpp"

namespace exactune {

const nlohmann::json& StepResult::entry(std::initializer_list<std::string_view> keys) const {
  const nlohmann::json* at = &record;
  for (std::string_view key : keys) {
    const auto found = at->is_object() ? at->find(key) : at->end();
    if (found == at->end()) {
      throw input_error(
          fmt::format("{}: step '{}' has no '{}' in its record, which this sweep needs: the journal "
                      "does not match this sweep; --restart discards it and starts the sweep over",
                      where.empty() ? "the journal" : where, step, fmt::join(keys, "/")));
    }
    at = &*found;
  }
  return *at;
}

StepResult StepRunner::run(const std::string& step, std::chrono::milliseconds deadline,
                           const std::function<nlohmann::json()>& compute) const {
  if (const StepOutcome* earlier = steps_ ? steps_->recorded(step) : nullptr) {
    if (earlier->crashed()) return {step, {}, earlier->crash_description(), earlier->where};
    const std::string failure = is_failure_record(earlier->record) ? read_failure_record(earlier->record) : "";
    return {step, earlier->record, failure, earlier->where};
  }
  if (steps_) steps_->begin(step, deadline);
  StepResult result{step, {}, {}, {}};
  try {
    result.record = compute();
  } catch (const std::exception& e) {
    result.failure = e.what();
    result.record = failure_record_json(result.failure);
  }
  if (steps_) {
    steps_->finish(step, result.record);
    if (!result.ok()) steps_->after_failure();
  }
  return result;
}

}  // namespace exactune
