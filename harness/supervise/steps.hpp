// What the verifier and the sweep ask of a supervised run, step by step: has
// this step finished in an earlier worker (its record, or the crash the
// supervisor saw)? Announce the step and its deadline before it starts; keep
// its record durably once it ends; after a failure, give the device a chance
// to say it is lost (a sticky GPU fault), which ends this worker so that a
// fresh one continues. Without supervision (tests, the runtime) there are no
// steps: every stage takes a null Steps* and runs everything in-process.
#pragma once
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>

#include "supervise/journal.hpp"

namespace exactune {

class Steps {
 public:
  virtual ~Steps() = default;
  virtual const StepOutcome* recorded(const std::string& step) const = 0;
  virtual void begin(const std::string& step, std::chrono::milliseconds deadline) = 0;
  // The step ended with nothing worth keeping (it is run again on resumption).
  virtual void end(const std::string& step) = 0;
  virtual void finish(const std::string& step, const nlohmann::json& record) = 0;
  virtual void after_failure() = 0;
};

// A step's deadline: an allowance every step gets (setup, module loads, the
// download and the comparison), plus `roofline_factor` times the time the
// device's memory needs to move the step's bytes at its peak bandwidth. A
// device without a known bandwidth (the CPU) gets the allowance alone.
struct DeadlinePolicy {
  std::chrono::duration<double> allowance{10.0};
  double roofline_factor = 100;
  double bytes_per_second = 0;  // the device's peak memory bandwidth; 0: unknown

  std::chrono::milliseconds for_bytes(double bytes) const;
};

}  // namespace exactune
