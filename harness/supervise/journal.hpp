// The journal of a supervised run (a sweep, a verify): one line of JSON per
// finished step, written before the next step starts, so that a killed run
// loses at most the step it was in and `--resume` takes up where it stopped.
// The first line names the run (its identity: GPU, toolchain, seed, shapes,
// ...); a run with another identity may not continue it.
//
// Durability. A line handed to write() survives the death of its process (the
// kernel holds it); only a crash of the machine loses what is not yet on disk.
// The journal is synced (fdatasync) at most every kSyncInterval, not per step
// (20,000 steps would cost seconds to minutes of syncs), and always when it is
// opened, closed, or written by the supervisor after a worker's death: a
// machine crash loses at most the steps of the last half second.
//
// A step's line holds either its record, written by the worker that ran it, or
// a crash, written by the supervisor when the worker died or hung in it:
//   {"step": "verify/s1/case/w4_r1", "record": {...}}
//   {"step": "verify/s1/case/w4_r2", "crash": "hung", "message": "ran past its deadline of 10.0 s"}
// A torn last line (a kill in the middle of a write) is dropped on reading.
//
// Reading checks every line before the run takes anything from it: the
// header's fields, each step's name and record (by the command's RecordCheck:
// the stage that writes a record reads it back), a crash's kind, and that no
// step is journaled twice with two results. A journal that fails is refused,
// with its file and line, as damaged: --restart discards it.
#pragma once
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace exactune {

// What a run is: the settings a resumed run must share with the one it continues.
using RunIdentity = std::map<std::string, std::string>;

// What the records of one command's journal may hold: throws exactune::error
// saying what is wrong with the record of `step`, or that the command has no
// such step.
using RecordCheck = std::function<void(const std::string& step, const nlohmann::json& record)>;

// A step's name split at each '/': "verify/s1/case/w4" -> {"verify", "s1", "case", "w4"}.
std::vector<std::string> journal_step_parts(const std::string& step);

// How a step ended: its record, or the crash the supervisor saw.
struct StepOutcome {
  nlohmann::json record;  // null when the step crashed
  std::string crash;      // "", "failed" (the worker died in it) or "hung" (it ran past its deadline)
  std::string message;    // the crash in words
  std::string where;      // "<journal>:<line>": where it is kept, for messages about it

  bool crashed() const { return !crash.empty(); }
  // The crash as a record says it: "hung: ran past ..." or "the worker died of ...".
  std::string crash_description() const { return crash == "hung" ? "hung: " + message : message; }
};

class Journal {
 public:
  // Opens the journal for `command` at `path`, holding an exclusive lock on it
  // for as long as this object lives. With `resume`, it must exist and name the
  // same identity (else exactune::input_error lists each difference); without,
  // an existing journal is refused unless `discard_existing` (--restart).
  // Every line read must be sound, each record as `records` says (else
  // exactune::input_error "<journal>:<line>: ..."). A journal that cannot be
  // created, opened or written (a folder, a missing or read-only place) is
  // exactune::input_error too, with the system's reason: bad input, not a
  // failed run.
  static Journal open(const std::filesystem::path& path, const std::string& command, const RunIdentity& identity,
                      bool resume, bool discard_existing, const RecordCheck& records);
  Journal(Journal&&) noexcept;
  Journal& operator=(Journal&&) = delete;
  ~Journal();

  const std::filesystem::path& path() const { return path_; }
  // The step's outcome from this journal, or nullptr when it has not finished.
  const StepOutcome* find(const std::string& step) const;
  std::size_t steps() const { return outcomes_.size(); }
  // Appends the finished step; syncs when the last sync is kSyncInterval old.
  void append(const std::string& step, const nlohmann::json& record);
  // Syncs what was appended since the last sync (before the process ends
  // without destructors, e.g. _exit).
  void sync();
  // The run finished and its results are written: the journal goes.
  void remove();

  // Appends a crash line to a journal no worker holds (the supervisor's, after
  // the worker that held it has died), unless the step is journaled already:
  // a worker killed at its deadline just after it journaled the step finished
  // it. Returns whether it appended.
  // Syncs the whole journal, the dead worker's unsynced lines with it.
  static bool append_crash(const std::filesystem::path& path, const std::string& step, const std::string& crash,
                           const std::string& message);

 private:
  Journal(std::filesystem::path path, int fd);
  void load(const std::string& command, const RunIdentity& identity, const RecordCheck& records);
  void check_header(const nlohmann::json& entry, const std::string& command, const RunIdentity& identity) const;
  void read_step(const nlohmann::json& entry, std::size_t line, const RecordCheck& records);
  void keep(const std::string& step, StepOutcome outcome);
  void write_line(const nlohmann::json& line);
  std::string where(std::size_t line) const;

  std::filesystem::path path_;
  int fd_ = -1;
  std::map<std::string, StepOutcome> outcomes_;
  std::size_t lines_ = 0;  // in the file, the header included
  bool unsynced_ = false;  // lines written since the last sync
  std::chrono::steady_clock::time_point last_sync_ = std::chrono::steady_clock::now();
};

// How old the last sync may grow before an append syncs again.
inline constexpr std::chrono::milliseconds kSyncInterval{500};

}  // namespace exactune
