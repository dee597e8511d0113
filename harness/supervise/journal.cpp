#include "supervise/journal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <vector>

#include <exactune/error.hpp>
#include "util/utc_time.hpp"

namespace exactune {

namespace {

constexpr int kJournalFormat = 1;

void write_all(int fd, const std::string& bytes, const std::filesystem::path& path) {
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw error(fmt::format("{}: cannot write the journal: {}", path.string(), std::strerror(errno)));
    written += static_cast<std::size_t>(n);
  }
}

void sync_to_disk(int fd, const std::filesystem::path& path) {
  if (::fdatasync(fd) != 0) {
    throw error(fmt::format("{}: cannot sync the journal to disk: {}", path.string(), std::strerror(errno)));
  }
}

std::string read_all(int fd, const std::filesystem::path& path) {
  std::string bytes;
  char buffer[1 << 16];
  if (::lseek(fd, 0, SEEK_SET) < 0) throw error(fmt::format("{}: {}", path.string(), std::strerror(errno)));
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw error(fmt::format("{}: cannot read the journal: {}", path.string(), std::strerror(errno)));
    if (n == 0) return bytes;
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
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

Journal Journal::open(const std::filesystem::path& path, const std::string& command, const RunIdentity& identity,
                      bool resume, bool discard_existing) {
  std::error_code ec;
  if (!path.parent_path().empty()) std::filesystem::create_directories(path.parent_path(), ec);
  const bool existed = std::filesystem::exists(path, ec);
  if (resume && !existed) {
    throw input_error(fmt::format("--resume: there is no journal at {} (no unfinished run with these settings to "
                                  "continue)",
                                  path.string()));
  }
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw error(fmt::format("{}: cannot open the journal: {}", path.string(), std::strerror(errno)));
  Journal journal(path, fd);
  struct stat info{};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    throw input_error(fmt::format("{}: the journal must be a regular file", path.string()));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    throw input_error(fmt::format("{}: another exactune run is writing this journal right now", path.string()));
  }
  if (info.st_size > 0 && !resume) {
    if (!discard_existing) {
      journal.load(command, {});
      throw input_error(fmt::format(
          "{}: an unfinished run's journal is here ({} steps finished): --resume continues it, --restart discards it",
          path.string(), journal.steps()));
    }
    if (::ftruncate(fd, 0) != 0) throw error(fmt::format("{}: {}", path.string(), std::strerror(errno)));
    info.st_size = 0;
  }
  if (info.st_size == 0) {
    nlohmann::json header = {{"exactune_journal", kJournalFormat}, {"command", command}, {"started", utc_now()}};
    header["identity"] = identity;
    journal.write_line(header);
    journal.sync();
    return journal;
  }
  journal.load(command, identity);
  return journal;
}

// Reads every finished step. An empty `identity` skips the identity check
// (only to count the steps of a journal about to be refused).
void Journal::load(const std::string& command, const RunIdentity& identity) {
  std::string bytes = read_all(fd_, path_);
  const std::size_t complete = bytes.rfind('\n') == std::string::npos ? 0 : bytes.rfind('\n') + 1;
  if (complete < bytes.size()) {  // a torn last line: the step it held never finished
    if (::ftruncate(fd_, static_cast<off_t>(complete)) != 0) {
      throw error(fmt::format("{}: cannot drop the torn last line: {}", path_.string(), std::strerror(errno)));
    }
    // Reading left the offset at the old end: the next line goes where the torn one began.
    if (::lseek(fd_, static_cast<off_t>(complete), SEEK_SET) < 0) {
      throw error(fmt::format("{}: {}", path_.string(), std::strerror(errno)));
    }
    bytes.resize(complete);
  }
  std::size_t start = 0;
  for (int line = 1; start < bytes.size(); ++line) {
    const std::size_t end = bytes.find('\n', start);
    const nlohmann::json entry = nlohmann::json::parse(bytes.substr(start, end - start), nullptr, false);
    start = end + 1;
    const std::string where = fmt::format("{}:{}", path_.string(), line);
    if (entry.is_discarded() || !entry.is_object()) throw input_error(where + ": not a journal line (damaged journal)");
    if (line == 1) {
      if (!entry.contains("exactune_journal") || entry["exactune_journal"] != kJournalFormat) {
        throw input_error(where + ": not an exactune journal of format " + std::to_string(kJournalFormat));
      }
      if (entry.value("command", "") != command) {
        throw input_error(fmt::format("{}: a journal of `exactune {}`, not of `exactune {}`", where,
                                      entry.value("command", "?"), command));
      }
      if (!identity.empty()) {
        RunIdentity recorded;
        const nlohmann::json recorded_identity = entry.value("identity", nlohmann::json::object());
        for (const auto& [key, value] : recorded_identity.items()) {
          recorded[key] = value.is_string() ? value.get<std::string>() : value.dump();
        }
        if (recorded != identity) {
          throw input_error(fmt::format("{}: cannot resume a run with other settings: {}", path_.string(),
                                        identity_differences(recorded, identity)));
        }
      }
      continue;
    }
    if (!entry.contains("step") || !entry["step"].is_string()) throw input_error(where + ": a journal line without a step");
    StepOutcome outcome;
    if (entry.contains("record")) {
      outcome.record = entry["record"];
    } else if (entry.contains("crash") && entry["crash"].is_string()) {
      outcome.crash = entry["crash"].get<std::string>();
      outcome.message = entry.value("message", "");
    } else {
      throw input_error(where + ": a journal line with neither a record nor a crash");
    }
    outcomes_[entry["step"].get<std::string>()] = std::move(outcome);
  }
}

const StepOutcome* Journal::find(const std::string& step) const {
  const auto it = outcomes_.find(step);
  return it == outcomes_.end() ? nullptr : &it->second;
}

void Journal::write_line(const nlohmann::json& line) {
  // One write per line: a kill leaves at most a torn last line, which load() drops.
  write_all(fd_, line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", path_);
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
  outcomes_[step] = StepOutcome{record, "", ""};
}

void Journal::remove() {
  std::error_code ec;
  std::filesystem::remove(path_, ec);
  if (fd_ >= 0) ::close(fd_);  // nothing to sync: the file is gone
  fd_ = -1;
  unsynced_ = false;
}

void Journal::append_crash(const std::filesystem::path& path, const std::string& step, const std::string& crash,
                           const std::string& message) {
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (fd < 0) throw error(fmt::format("{}: cannot open the journal: {}", path.string(), std::strerror(errno)));
  ::flock(fd, LOCK_EX);
  try {
    // A worker killed mid-write left a torn line: start on a line of our own.
    std::string bytes = read_all(fd, path);
    std::string line = nlohmann::json({{"step", step}, {"crash", crash}, {"message", message}})
                           .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (!bytes.empty() && bytes.back() != '\n') {
      if (::ftruncate(fd, static_cast<off_t>(bytes.rfind('\n') + 1)) != 0) {
        throw error(fmt::format("{}: {}", path.string(), std::strerror(errno)));
      }
    }
    write_all(fd, line, path);
    sync_to_disk(fd, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

}  // namespace exactune
