#include "cli/supervision_options.hpp"

#include <fmt/format.h>

#include <functional>

#include "backends/gpu/gpu_backend.hpp"
#include "cli/common_options.hpp"
#include "compile/compile_cache.hpp"
#include "compile/host/host_toolchain.hpp"
#include "supervise/worker_channel.hpp"
#include "util/content_hash.hpp"
#include "verify/verify_stage.hpp"

namespace exactune::cli {

void SupervisionOptions::add_to(CLI::App& command, const std::string& default_journal) {
  CLI::Option* resume_flag = command.add_flag(
      "--resume", resume,
      fmt::format("continue the unfinished run whose journal ({}) holds every step it finished; refused "
                  "when the GPU, toolchain, seed, shapes or other settings differ",
                  default_journal));
  command.add_flag("--restart", restart, "discard an unfinished run's journal and start again")->excludes(resume_flag);
  command.add_option("--journal", journal, fmt::format("the journal of finished steps (default: {})", default_journal))
      ->check(nonempty_path());
  command
      .add_option("--deadline", deadline_s,
                  "seconds every step may take before it is killed as hung, plus 100x the time its bytes take at "
                  "the GPU's peak bandwidth (default: 10 on a GPU, 60 on the CPU)")
      ->check(finite_number_from(0.1, 86400.0));
  command
      .add_option("--plant-crash", plant_crash,
                  "test supervision: add per size a copy of the first variant whose kernel crashes: trap, "
                  "out-of-bounds or spin (each gets a failed or hung record; nothing else is lost)")
      ->check(CLI::IsMember(planted_crash_kinds()))
      ->delimiter(',');
}

bool SupervisionOptions::supervises() const { return SupervisorChannel::of_this_process() == nullptr; }

Journal SupervisionOptions::open_journal(const std::filesystem::path& default_path, const std::string& command,
                                         const RunIdentity& identity, const RecordCheck& records) const {
  SupervisorChannel* channel = SupervisorChannel::of_this_process();
  const bool continues = channel && channel->continues_a_crashed_worker();
  Journal opened = Journal::open(journal.empty() ? default_path : std::filesystem::path(journal), command, identity,
                                 resume || continues, restart && !continues, records);
  if (channel) channel->journal(opened.path());
  if (opened.steps() > 0 && !continues) {
    fmt::print(stderr, "resuming {}: {} steps already finished\n", opened.path().string(), opened.steps());
  }
  return opened;
}

DeadlinePolicy SupervisionOptions::deadlines(Backend& backend) const {
  DeadlinePolicy policy;
  if (const auto* gpu = dynamic_cast<GpuBackend*>(&backend)) {
    policy.allowance = std::chrono::duration<double>(deadline_s > 0 ? deadline_s : 10.0);
    policy.bytes_per_second = gpu->gpu().peak_memory_bytes_per_second();
  } else {
    policy.allowance = std::chrono::duration<double>(deadline_s > 0 ? deadline_s : 60.0);
  }
  return policy;
}

void SupervisionOptions::apply_to(VerifyStageOptions& stage, Steps& steps, Backend& backend) const {
  stage.verify.steps = &steps;
  stage.verify.deadlines = deadlines(backend);
  stage.planted_crashes = plant_crash;
}

JournaledSteps worker_steps(Journal& journal, Backend& backend) {
  std::function<std::string()> device_lost = [] { return std::string(); };
  if (auto* gpu = dynamic_cast<GpuBackend*>(&backend)) device_lost = [gpu] { return gpu->context_error(); };
  return JournaledSteps(journal, SupervisorChannel::of_this_process(), std::move(device_lost));
}

RunIdentity run_identity(Backend& backend, const std::string& family, const std::vector<Shape>& shapes,
                         std::uint64_t seed, const std::string& variant_glob, const std::vector<std::string>& planted) {
  RunIdentity identity;
  identity["backend"] = backend.description();
  if (const auto* gpu = dynamic_cast<GpuBackend*>(&backend)) {
    identity["driver"] = std::to_string(gpu->gpu().driver_version);
    identity["nvrtc"] = gpu->gpu().nvrtc_version;
  } else {
    const std::string& version = host_exec::host_toolchain().version;
    identity["host compiler"] = version.substr(0, version.find('\n'));
  }
  identity["family"] = family;
  std::vector<std::string> defined;
  for (const Shape& s : shapes) defined.push_back(s.name + ": " + s.describe_parameters());
  identity["shapes"] = fmt::format("{}", fmt::join(defined, "; "));
  identity["seed"] = std::to_string(seed);
  identity["variants"] = variant_glob;
  identity["planted crashes"] = fmt::format("{}", fmt::join(planted, ","));
  return identity;
}

std::filesystem::path default_journal(const std::filesystem::path& cache_dir, const std::string& command,
                                      const RunIdentity& identity) {
  std::string all;
  for (const auto& [key, value] : identity) all += key + "=" + value + "\n";
  return cache_dir / "journals" / fmt::format("{}-{}.journal", command, content_hash({all}).substr(0, 16));
}

}  // namespace exactune::cli
