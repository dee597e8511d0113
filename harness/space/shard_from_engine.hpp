// `--shard auto`: a sweep's shard taken from the job engine that started it,
// so that one array job or Indexed Job runs a fleet's shards with one command
// line. Slurm job arrays say SLURM_ARRAY_TASK_ID within
// SLURM_ARRAY_TASK_MIN..SLURM_ARRAY_TASK_MAX (mapped onto 1..n); Kubernetes
// Indexed Jobs say JOB_COMPLETION_INDEX from 0 and no count, which the Job
// sets as EXACTUNE_SHARD_COUNT. The resolution reads the environment through
// a lookup it is given, so the tests never touch the real one.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include <exactune/results.hpp>

namespace exactune {

// A variable's value; nullopt when it is not set.
using EnvironmentLookup = std::function<std::optional<std::string>(const char*)>;

// The count of shards of a Kubernetes Indexed Job (its spec.completions),
// which Kubernetes does not set; also taken for a Slurm array that does not
// say its own count.
inline constexpr const char* kShardCountVariable = "EXACTUNE_SHARD_COUNT";

struct EngineShard {
  Shard shard;
  std::string source;  // e.g. "Slurm job array task 5 of 3..7"
};

// The shard the job engine's variables in `environment` give (a variable set
// to "" counts as unset). Throws exactune::input_error, one line starting
// "--shard auto: " and naming the variables, when no engine's variables are
// set, both engines' are, or they are not whole numbers or disagree (an index
// outside the count, a stepped or gapped Slurm array, two counts that differ).
EngineShard shard_from_engine(const EnvironmentLookup& environment);

// The process's own environment, through getenv.
EnvironmentLookup process_environment();

}  // namespace exactune
