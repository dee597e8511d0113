// --resume, --restart, --journal, --deadline and --plant-crash: how a command
// that runs kernels (sweep, verify) is supervised (supervise/supervisor.hpp),
// and what identifies its run, so that a resumed run continues only its own
// journal.
#pragma once
#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include <exactune/backend.hpp>
#include <exactune/shapes.hpp>

#include "supervise/journal.hpp"
#include "supervise/journaled_steps.hpp"
#include "supervise/steps.hpp"
#include "verify/verify_stage.hpp"

namespace exactune::cli {

struct SupervisionOptions {
  bool resume = false;
  bool restart = false;
  std::string journal;    // empty: the command's default place
  double deadline_s = 0;  // the allowance of every step; 0: 10 s on a GPU, 60 s on the CPU
  std::vector<std::string> plant_crash;

  void add_to(CLI::App& command, const std::string& default_journal);

  // True in the process the user started: it supervises a worker, which runs
  // the command (supervise_this_command()).
  bool supervises() const;
  // The worker's journal: --journal, else `default_path`; resumed with --resume
  // or when this worker continues one that crashed; its records checked by `records`.
  Journal open_journal(const std::filesystem::path& default_path, const std::string& command,
                       const RunIdentity& identity, const RecordCheck& records) const;
  DeadlinePolicy deadlines(Backend& backend) const;
  // A verify stage on `backend` run as `steps`, with its deadlines and planted crashes.
  void apply_to(VerifyStageOptions& stage, Steps& steps, Backend& backend) const;
};

// The steps of this worker on `backend`: journaled in `journal`, announced to
// its supervisor, ending the worker when a failure lost the device (a GPU's
// sticky fault).
JournaledSteps worker_steps(Journal& journal, Backend& backend);

// What a run of `command` is, for its journal: the backend (its GPU and driver,
// or the CPU's host compiler), NVRTC, the family, the shapes as defined, the
// seed and whatever else the caller adds.
RunIdentity run_identity(Backend& backend, const std::string& family, const std::vector<Shape>& shapes,
                         std::uint64_t seed, const std::string& variant_glob, const std::vector<std::string>& planted);

// <cache>/journals/<command>-<hash of the identity>.journal: where a command
// without an output folder of its own journals.
std::filesystem::path default_journal(const std::filesystem::path& cache_dir, const std::string& command,
                                      const RunIdentity& identity);

}  // namespace exactune::cli
