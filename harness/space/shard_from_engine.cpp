// `--shard auto` (shard_from_engine.hpp): the job engines' variables read
// into a Shard, every inconsistency refused in one line that names them.
#include "space/shard_from_engine.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <limits>

#include <exactune/error.hpp>

namespace exactune {

namespace {

constexpr const char* kSlurmId = "SLURM_ARRAY_TASK_ID";
constexpr const char* kSlurmMin = "SLURM_ARRAY_TASK_MIN";
constexpr const char* kSlurmMax = "SLURM_ARRAY_TASK_MAX";
constexpr const char* kSlurmCount = "SLURM_ARRAY_TASK_COUNT";
constexpr const char* kSlurmStep = "SLURM_ARRAY_TASK_STEP";
constexpr const char* kKubernetesIndex = "JOB_COMPLETION_INDEX";

[[noreturn]] void refuse_shard_auto(const std::string& what) { throw input_error("--shard auto: " + what); }

// A variable's whole number (0 or more); nullopt when it is unset or "".
std::optional<long long> whole(const EnvironmentLookup& environment, const char* name) {
  const std::optional<std::string> text = environment(name);
  if (!text || text->empty()) return std::nullopt;
  long long value = 0;
  const auto [stop, status] = std::from_chars(text->data(), text->data() + text->size(), value);
  const bool digits = stop == text->data() + text->size() && text->front() != '-';
  if (digits && (status == std::errc::result_out_of_range || value > std::numeric_limits<int>::max())) {
    refuse_shard_auto(fmt::format("{}={} is too large", name, *text));  // and what follows adds no more than ints
  }
  if (!digits || status != std::errc()) refuse_shard_auto(fmt::format("{}={} is not a whole number", name, *text));
  return value;
}

// The count from `name` (at least 1, at most kMaxShards).
long long count_of(const char* name, long long count) {
  if (count < 1) refuse_shard_auto(fmt::format("{}={}: a sweep has at least one shard", name, count));
  if (count > kMaxShards) {
    refuse_shard_auto(fmt::format("{}={}: a sweep is split into at most {} shards", name, count, kMaxShards));
  }
  return count;
}

EngineShard slurm(const EnvironmentLookup& environment, long long id) {
  const std::optional<long long> min = whole(environment, kSlurmMin), max = whole(environment, kSlurmMax),
                                 slurm_count = whole(environment, kSlurmCount), step = whole(environment, kSlurmStep),
                                 own_count = whole(environment, kShardCountVariable);
  if (!min) {
    refuse_shard_auto(
        fmt::format("{}={} without {}: where the array starts is unknown (submit it with sbatch --array=A-B)", kSlurmId,
                    id, kSlurmMin));
  }
  if (step && *step != 1) {
    refuse_shard_auto(
        fmt::format("{}={}: a stepped array leaves shards out (submit it with sbatch --array=A-B)", kSlurmStep, *step));
  }
  long long count = 0;
  std::string range;
  const std::string range_names = fmt::format("{}..{}", kSlurmMin, max ? kSlurmMax : "(its count)");
  if (max) {
    if (*max < *min) refuse_shard_auto(fmt::format("{}={} is below {}={}", kSlurmMax, *max, kSlurmMin, *min));
    count = *max - *min + 1;
    range = fmt::format("{}..{}", *min, *max);
    if (count > kMaxShards) {
      refuse_shard_auto(fmt::format("{} = {} is {} tasks: a sweep is split into at most {} shards", range_names, range,
                                    count, kMaxShards));
    }
    if (slurm_count && *slurm_count != count) {
      refuse_shard_auto(
          fmt::format("{}={} but {}..{} is {}: an array with gaps leaves shards out (submit it with sbatch "
                      "--array=A-B)",
                      kSlurmCount, *slurm_count, kSlurmMin, kSlurmMax, range));
    }
  } else if (slurm_count) {
    count = count_of(kSlurmCount, *slurm_count);
  } else if (own_count) {
    count = count_of(kShardCountVariable, *own_count);
  } else {
    refuse_shard_auto(fmt::format("{}={} with none of {}, {} or {}: the count of shards is unknown", kSlurmId, id,
                                  kSlurmMax, kSlurmCount, kShardCountVariable));
  }
  if (range.empty()) range = fmt::format("{}..{}", *min, *min + count - 1);
  if (own_count && *own_count != count) {
    refuse_shard_auto(fmt::format("{}={} but the Slurm array, {} = {}, has {} tasks", kShardCountVariable, *own_count,
                                  range_names, range, count));
  }
  if (id < *min || id > *min + count - 1) {
    refuse_shard_auto(fmt::format("{}={} is outside the array, {} = {}", kSlurmId, id, range_names, range));
  }
  const Shard shard{static_cast<int>(id - *min + 1), static_cast<int>(count)};
  return {shard, fmt::format("Slurm job array task {} of {}", id, range)};
}

EngineShard kubernetes(const EnvironmentLookup& environment, long long index) {
  const std::optional<long long> count = whole(environment, kShardCountVariable);
  if (!count) {
    refuse_shard_auto(fmt::format("{}={} without {}: Kubernetes sets no count; set {} to the Indexed Job's completions",
                                  kKubernetesIndex, index, kShardCountVariable, kShardCountVariable));
  }
  count_of(kShardCountVariable, *count);
  if (index >= *count) {
    refuse_shard_auto(
        fmt::format("{}={} is outside 0..{}-1 = 0..{}", kKubernetesIndex, index, kShardCountVariable, *count - 1));
  }
  const Shard shard{static_cast<int>(index + 1), static_cast<int>(*count)};
  return {shard, fmt::format("Kubernetes Indexed Job completion index {} of 0..{}", index, *count - 1)};
}

}  // namespace

EngineShard shard_from_engine(const EnvironmentLookup& environment) {
  const std::optional<long long> slurm_id = whole(environment, kSlurmId);
  const std::optional<long long> kubernetes_index = whole(environment, kKubernetesIndex);
  if (slurm_id && kubernetes_index) {
    refuse_shard_auto(
        fmt::format("both {} (Slurm) and {} (Kubernetes) are set: which engine runs this is unclear; give "
                    "--shard i/n",
                    kSlurmId, kKubernetesIndex));
  }
  if (slurm_id) return slurm(environment, *slurm_id);
  if (kubernetes_index) return kubernetes(environment, *kubernetes_index);
  refuse_shard_auto(
      fmt::format("no job engine's variables are set: {} (a Slurm job array) or {} with {} (a Kubernetes "
                  "Indexed Job); give --shard i/n otherwise",
                  kSlurmId, kKubernetesIndex, kShardCountVariable));
}

EnvironmentLookup process_environment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

}  // namespace exactune
