#include "supervise/journal.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <string_view>
#include <vector>

#include <exactune/error.hpp>

#include "util/strict_json.hpp"
#include "util/utc_time.hpp"

namespace exactune {

namespace {

constexpr int kJournalFormat = 1;

// A journal the system will not let this run create, read or write (a folder
// in its place, no permission, no space) is the user's to mend, not a failure
// of the run: exit 2, with the system's reason.
[[noreturn]] void refused_by_system(const std::filesystem::path& path, std::string_view doing) {
  throw input_error(fmt::format("{}: cannot {} the journal: {}", path.string(), doing, std::strerror(errno)));
}

// A damaged journal, refused at the line that is wrong.
[[noreturn]] void refuse_damage(const std::string& where, std::string_view what) {
  throw input_error(
      fmt::format("{}: {}: the journal is damaged; --restart discards it and starts the run over", where, what));
}

void write_all(int fd, const std::string& bytes, const std::filesystem::path& path) {
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) refused_by_system(path, "write");
    written += static_cast<std::size_t>(n);
  }
}

void sync_to_disk(int fd, const std::filesystem::path& path) {
  if (::fdatasync(fd) != 0) refused_by_system(path, "sync to disk");
}

std::string read_all(int fd, const std::filesystem::path& path) {
  std::string bytes;
  char buffer[1 << 16];
  if (::lseek(fd, 0, SEEK_SET) < 0) refused_by_system(path, "read");
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) refused_by_system(path, "read");
    if (n == 0) return bytes;
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
}

// The identity a header records: every value a string, as open() writes it.
RunIdentity recorded_identity(const strict_json::Object& header) {
  RunIdentity recorded;
  const nlohmann::json& identity = header["identity"];
  if (!identity.is_object()) {
    header.fail(fmt::format("'identity' must be an object, got {}", strict_json::excerpt(identity)));
  }
  for (const auto& [key, value] : identity.items()) {
    recorded[key] = strict_json::text(value, header.name_of("identity." + key));
  }
  return recorded;
}

// A step's name in a message: quoted, on one line, and whole unless damage made it longer than any step's.
std::string step_name(const std::string& step) {
  constexpr std::size_t kLongest = 400;
  return strict_json::excerpt(step, kLongest);
}

// Whether a complete line of `bytes` journals `step` (a line that reads as no JSON is skipped: load() refuses it).
bool journals_step(const std::string& bytes, const std::string& step) {
  std::size_t start = 0;
  for (std::size_t end; (end = bytes.find('\n', start)) != std::string::npos; start = end + 1) {
    const nlohmann::json entry = nlohmann::json::parse(bytes.substr(start, end - start), nullptr, false);
    if (entry.is_object() && entry.contains("step") && entry["step"] == step) return true;
  }
  return false;
}

std::string identity_differences(const RunIdentity& journal, const RunIdentity& run) {
  std::vector<std::string> differences;
  auto value = [](const RunIdentity& identity, const std::string& key) {
    const auto it = identity.find(key);
    return it == identity.end() ? std::string("(none)") : it->second;
  };
  RunIdentity keys = journal;
  keys.insert(run.begin(), run.end());
  for (const auto& [key, ignored] : keys) {
    if (value(journal, key) != value(run, key)) {
      differences.push_back(fmt::format("{} was {}, now {}", key, value(journal, key), value(run, key)));
    }
  }
  return fmt::format("{}", fmt::join(differences, "; "));
}

}  // namespace

Journal::Journal(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}

Journal::Journal(Journal&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(other.fd_),
      outcomes_(std::move(other.outcomes_)),
      lines_(other.lines_),
      unsynced_(other.unsynced_),
      last_sync_(other.last_sync_) {
  other.fd_ = -1;
  other.unsynced_ = false;
}

Journal::~Journal() {
  if (fd_ < 0) return;
  if (unsynced_ && ::fdatasync(fd_) != 0) {  // a destructor cannot throw: say it
    fmt::print(stderr, "exactune: {}: cannot sync the journal to disk: {}\n", path_.string(), std::strerror(errno));
  }
  ::close(fd_);  // closing releases the lock
}

std::vector<std::string> journal_step_parts(const std::string& step) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t slash = step.find('/', start);
    parts.push_back(step.substr(start, slash - start));
    if (slash == std::string::npos) return parts;
    start = slash + 1;
  }
}

Journal Journal::open(const std::filesystem::path& path, const std::string& command, const RunIdentity& identity,
                      bool resume, bool discard_existing, const RecordCheck& records) {
  std::error_code ec;
  if (!path.parent_path().empty()) {
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) {
      throw input_error(fmt::format("{}: cannot create the journal's folder {}: {}", path.string(),
                                    path.parent_path().string(), ec.message()));
    }
  }
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(status)) {
    throw input_error(fmt::format("{}: is a folder; the journal is a file (--journal names the file)", path.string()));
  }
  const bool existed = std::filesystem::exists(status);
  if (resume && !existed) {
    throw input_error(
        fmt::format("--resume: there is no journal at {} (no unfinished run with these settings to "
                    "continue)",
                    path.string()));
  }
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) refused_by_system(path, "open");
  Journal journal(path, fd);
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    throw input_error(fmt::format("{}: the journal must be a regular file", path.string()));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    throw input_error(fmt::format("{}: another exactune run is writing this journal right now", path.string()));
  }
  if (info.st_size > 0 && !resume) {
    if (!discard_existing) {
      journal.load(command, {}, records);
      throw input_error(fmt::format(
          "{}: an unfinished run's journal is here ({} steps finished): --resume continues it, --restart discards it",
          path.string(), journal.steps()));
    }
    if (::ftruncate(fd, 0) != 0) refused_by_system(path, "empty");
    info.st_size = 0;
  }
  if (info.st_size == 0) {
    nlohmann::json header = {{"exactune_journal", kJournalFormat}, {"command", command}, {"started", utc_now()}};
    header["identity"] = identity;
    journal.write_line(header);
    journal.sync();
    return journal;
  }
  journal.load(command, identity, records);
  return journal;
}

// Reads every finished step. An empty `identity` skips the identity check
// (only to count the steps of a journal about to be refused).
void Journal::load(const std::string& command, const RunIdentity& identity, const RecordCheck& records) {
  std::string bytes = read_all(fd_, path_);
  const std::size_t complete = bytes.rfind('\n') == std::string::npos ? 0 : bytes.rfind('\n') + 1;
  if (complete < bytes.size()) {  // a torn last line: the step it held never finished
    if (::ftruncate(fd_, static_cast<off_t>(complete)) != 0) refused_by_system(path_, "drop the torn last line of");
    // Reading left the offset at the old end: the next line goes where the torn one began.
    if (::lseek(fd_, static_cast<off_t>(complete), SEEK_SET) < 0) refused_by_system(path_, "seek in");
    bytes.resize(complete);
  }
  std::size_t start = 0;
  for (std::size_t line = 1; start < bytes.size(); ++line) {
    const std::size_t end = bytes.find('\n', start);
    const nlohmann::json entry = nlohmann::json::parse(bytes.substr(start, end - start), nullptr, false);
    start = end + 1;
    lines_ = line;
    if (entry.is_discarded() || !entry.is_object()) refuse_damage(where(line), "not a journal line");
    if (line == 1) {
      check_header(entry, command, identity);
    } else {
      read_step(entry, line, records);
    }
  }
}

// The first line: the journal's format, the command and the run it is of.
void Journal::check_header(const nlohmann::json& entry, const std::string& command, const RunIdentity& identity) const {
  if (!entry.contains("exactune_journal") || entry["exactune_journal"] != kJournalFormat) {
    throw input_error(fmt::format("{}: not an exactune journal of format {}", where(1), kJournalFormat));
  }
  RunIdentity recorded;
  try {
    const strict_json::Object header(entry, "the header", {"exactune_journal", "command", "started", "identity"});
    strict_json::text(header["started"], header.name_of("started"));
    if (const std::string journaled = header.text("command"); journaled != command) {
      throw input_error(
          fmt::format("{}: a journal of `exactune {}`, not of `exactune {}`", where(1), journaled, command));
    }
    recorded = recorded_identity(header);
  } catch (const input_error&) {
    throw;
  } catch (const error& e) {
    refuse_damage(where(1), e.what());
  }
  if (!identity.empty() && recorded != identity) {
    throw input_error(fmt::format("{}: cannot resume a run with other settings: {}", path_.string(),
                                  identity_differences(recorded, identity)));
  }
}

// A step's line: its name, and its record (as `records` checks it) or its crash.
void Journal::read_step(const nlohmann::json& entry, std::size_t line, const RecordCheck& records) {
  std::string step;
  try {
    const strict_json::Object fields(entry, "the line", {"step", "record", "crash", "message"});
    step = fields.text("step");
    if (step.empty()) fields.fail("its step has no name");
    StepOutcome outcome;
    outcome.where = where(line);
    if (fields.has("record") == fields.has("crash")) fields.fail("it holds either a step's record or its crash");
    if (fields.has("record")) {
      if (fields.has("message")) fields.fail("a record has no 'message' beside it (a crash has)");
      outcome.record = fields["record"];
      records(step, outcome.record);
    } else {
      outcome.crash = fields.one_of("crash", {"failed", "hung"});
      outcome.message = fields.text("message");
    }
    keep(step, std::move(outcome));
  } catch (const error& e) {
    refuse_damage(where(line),
                  step.empty() ? std::string(e.what()) : fmt::format("step {}: {}", step_name(step), e.what()));
  }
}

// A step journaled twice with one result is kept once; with two, which one
// held is unknown, and the journal is no record of the run.
void Journal::keep(const std::string& step, StepOutcome outcome) {
  const auto [kept, added] = outcomes_.try_emplace(step, outcome);
  if (added) return;
  const StepOutcome& first = kept->second;
  if (first.record == outcome.record && first.crash == outcome.crash && first.message == outcome.message) return;
  throw error(fmt::format("it is journaled again with another result (first at {})", first.where));
}

std::string Journal::where(std::size_t line) const { return fmt::format("{}:{}", path_.string(), line); }

const StepOutcome* Journal::find(const std::string& step) const {
  const auto it = outcomes_.find(step);
  return it == outcomes_.end() ? nullptr : &it->second;
}

void Journal::write_line(const nlohmann::json& line) {
  // One write per line: a kill leaves at most a torn last line, which load() drops.
  write_all(fd_, line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", path_);
  ++lines_;
  unsynced_ = true;
  if (std::chrono::steady_clock::now() - last_sync_ >= kSyncInterval) sync();
}

void Journal::sync() {
  if (fd_ < 0 || !unsynced_) return;
  sync_to_disk(fd_, path_);
  unsynced_ = false;
  last_sync_ = std::chrono::steady_clock::now();
}

void Journal::append(const std::string& step, const nlohmann::json& record) {
  write_line({{"step", step}, {"record", record}});
  outcomes_[step] = StepOutcome{record, "", "", where(lines_)};
}

void Journal::remove() {
  std::error_code ec;
  std::filesystem::remove(path_, ec);
  if (fd_ >= 0) ::close(fd_);  // nothing to sync: the file is gone
  fd_ = -1;
  unsynced_ = false;
}

bool Journal::append_crash(const std::filesystem::path& path, const std::string& step, const std::string& crash,
                           const std::string& message) {
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (fd < 0) refused_by_system(path, "open");
  ::flock(fd, LOCK_EX);
  bool appended = false;
  try {
    // A worker killed mid-write left a torn line: start on a line of our own.
    std::string bytes = read_all(fd, path);
    if (!bytes.empty() && bytes.back() != '\n') {
      if (::ftruncate(fd, static_cast<off_t>(bytes.rfind('\n') + 1)) != 0) {
        refused_by_system(path, "drop the torn last line of");
      }
    }
    // A step journaled already was finished by the worker: one result per step.
    if (!journals_step(bytes, step)) {
      const std::string line = nlohmann::json({{"step", step}, {"crash", crash}, {"message", message}})
                                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                               "\n";
      write_all(fd, line, path);
      appended = true;
    }
    sync_to_disk(fd, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return appended;
}

}  // namespace exactune
