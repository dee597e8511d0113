// write_file_set: temporaries flushed, then renamed with hard-link backups for
// the way back, and the leftovers of killed runs cleared first.
#include "report/file_set.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include <exactune/error.hpp>

#include "util/process_liveness.hpp"

namespace exactune {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kTemporaryTag = ".tmp";
constexpr std::string_view kBackupTag = ".old";

// ".<name><tag><pid>" beside `target`: a dot file (out of `ls`), tied to the process that made it.
fs::path dot_file_beside(const fs::path& target, std::string_view tag, pid_t pid) {
  return target.parent_path() / fmt::format(".{}{}{}", target.filename().string(), tag, pid);
}

// The pid ending a name "<stem><tag><pid>"; none when the name is not of that form.
std::optional<pid_t> pid_after(std::string_view name, std::string_view tag) {
  const std::size_t at = name.rfind(tag);
  if (at == std::string_view::npos || at == 0) return std::nullopt;
  const std::string_view digits = name.substr(at + tag.size());
  pid_t pid = 0;
  const auto [end, failure] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  if (digits.empty() || failure != std::errc() || end != digits.data() + digits.size() || pid <= 0) {
    return std::nullopt;
  }
  return pid;
}

// Only a process that is certainly gone: one that is alive (or that this user
// may not signal) may be writing its own set in the same folder right now.
bool process_is_gone(pid_t pid) { return pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH; }

// Removes from `folder` what writers killed before their renames left: a set's
// dot-file temporaries and backups, and the "<name>.tmp<pid>" of a single-file
// write (write_text_file) of a name this set writes.
void remove_leftovers(const fs::path& folder, const std::set<std::string>& names) {
  std::vector<fs::path> leftovers;
  std::error_code listing;
  for (fs::directory_iterator it(folder, listing), end; !listing && it != end; it.increment(listing)) {
    const std::string name = it->path().filename().string();
    std::optional<pid_t> pid;
    if (name.front() == '.') {
      pid = pid_after(name, kTemporaryTag);
      if (!pid) pid = pid_after(name, kBackupTag);
    } else if (names.count(name.substr(0, name.rfind(kTemporaryTag)))) {
      pid = pid_after(name, kTemporaryTag);
    }
    if (pid && process_is_gone(*pid)) leftovers.push_back(it->path());
  }
  for (const fs::path& leftover : leftovers) {
    std::error_code ignored;
    fs::remove(leftover, ignored);
  }
}

// Writes `text` to a new file at `path` and flushes it to disk; why it failed, or "".
std::string write_flushed(const fs::path& path, std::string_view text) {
  std::error_code ignored;
  fs::remove(path, ignored);  // O_EXCL below: never write through what was there (a link planted in its place)
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return std::strerror(errno);
  std::string why;
  for (std::size_t done = 0; done < text.size() && why.empty();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n >= 0) {
      done += static_cast<std::size_t>(n);
    } else if (errno != EINTR) {
      why = std::strerror(errno);
    }
  }
  // Flushed before the rename: a crash after it must not leave an empty file under the target's name.
  if (why.empty() && ::fsync(fd) != 0) why = std::strerror(errno);
  if (::close(fd) != 0 && why.empty()) why = std::strerror(errno);
  return why;
}

void flush_folder(const fs::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the files are in place; only their durability across a power cut is at stake
  ::fsync(fd);
  ::close(fd);
}

// The first folder on the way to `folder` that exists and is no folder.
std::optional<fs::path> file_in_the_way(const fs::path& folder) {
  fs::path prefix;
  for (const fs::path& part : folder) {
    prefix /= part;
    std::error_code ec;
    const fs::file_status status = fs::status(prefix, ec);
    if (fs::exists(status) && !fs::is_directory(status)) return prefix;
  }
  return std::nullopt;
}

void make_folder(const fs::path& folder) {
  std::error_code ec, ignored;
  if (fs::create_directories(folder, ec) || fs::is_directory(folder, ignored)) return;
  if (const std::optional<fs::path> file = file_in_the_way(folder)) {
    throw error(fmt::format("{}: is a file, not a folder", file->string()));
  }
  throw error(fmt::format("{}: cannot create the folder: {}", folder.string(), ec.message()));
}

void check_inside(const fs::path& directory, const fs::path& path) {
  bool inside = path.is_relative() && path.has_filename();
  for (const fs::path& part : path) inside = inside && part != "." && part != "..";
  if (!inside) {
    throw input_error(fmt::format("'{}' would be written outside {}: a generated file stays in its folder",
                                  path.string(), directory.string()));
  }
}

// One set's files on their way into place, put back as they were on failure.
class SetWrite {
 public:
  explicit SetWrite(std::vector<fs::path> targets) : targets_(std::move(targets)), pid_(::getpid()) {
    backed_up_.assign(targets_.size(), false);
  }
  SetWrite(const SetWrite&) = delete;
  SetWrite& operator=(const SetWrite&) = delete;
  ~SetWrite() {
    if (!done_) roll_back();
  }

  void write_temporaries(const std::vector<GeneratedFile>& files) {
    for (std::size_t i = 0; i < files.size(); ++i) {
      ++written_;
      const std::string why = write_flushed(temporary_of(targets_[i], pid_), files[i].text);
      if (!why.empty()) throw error(fmt::format("{}: cannot write it: {}", targets_[i].string(), why));
    }
  }

  // A backup (a hard link: nothing copied) of each file replaced, so that a
  // later rename that fails can put it back.
  void rename_into_place() {
    for (std::size_t i = 0; i < targets_.size(); ++i) {
      const fs::path& target = targets_[i];
      std::error_code ec;
      const fs::file_status status = fs::symlink_status(target, ec);
      if (fs::is_directory(status)) throw error(fmt::format("{}: is a folder, not a file", target.string()));
      if (fs::exists(status)) {
        const fs::path backup = dot_file_beside(target, kBackupTag, pid_);
        fs::remove(backup, ec);
        if (::link(target.c_str(), backup.c_str()) != 0 &&
            !fs::copy_file(target, backup, fs::copy_options::overwrite_existing, ec)) {
          throw error(
              fmt::format("{}: cannot keep the old file while replacing it: {}", target.string(), ec.message()));
        }
        backed_up_[i] = true;
      }
      fs::rename(temporary_of(target, pid_), target, ec);
      if (ec) throw error(fmt::format("{}: cannot replace it: {}", target.string(), ec.message()));
      ++renamed_;
    }
    done_ = true;
    for (std::size_t i = 0; i < targets_.size(); ++i) {
      std::error_code ignored;
      if (backed_up_[i]) fs::remove(dot_file_beside(targets_[i], kBackupTag, pid_), ignored);
    }
  }

 private:
  void roll_back() noexcept {
    std::error_code ignored;
    for (std::size_t i = 0; i < renamed_; ++i) {
      if (backed_up_[i]) {
        fs::rename(dot_file_beside(targets_[i], kBackupTag, pid_), targets_[i], ignored);
      } else {
        fs::remove(targets_[i], ignored);
      }
    }
    for (std::size_t i = renamed_; i < targets_.size(); ++i) {
      if (i < written_) fs::remove(temporary_of(targets_[i], pid_), ignored);
      if (backed_up_[i]) fs::remove(dot_file_beside(targets_[i], kBackupTag, pid_), ignored);
    }
  }

  std::vector<fs::path> targets_;
  pid_t pid_;
  std::vector<bool> backed_up_;
  std::size_t written_ = 0;  // temporaries begun
  std::size_t renamed_ = 0;  // targets replaced
  bool done_ = false;
};

}  // namespace

fs::path temporary_of(const fs::path& target, pid_t pid) { return dot_file_beside(target, kTemporaryTag, pid); }

std::vector<fs::path> write_file_set(const fs::path& directory, const std::vector<GeneratedFile>& files) {
  std::vector<fs::path> targets;
  std::map<fs::path, std::set<std::string>> names_by_folder;
  for (const GeneratedFile& f : files) {
    check_inside(directory, f.path);
    targets.push_back(directory / f.path);
    const fs::path folder = targets.back().parent_path();
    if (!names_by_folder[folder.empty() ? "." : folder].insert(f.path.filename().string()).second) {
      throw error(fmt::format("{}: twice in one set of files", targets.back().string()));
    }
  }
  for (const auto& [folder, names] : names_by_folder) {
    make_folder(folder);
    remove_leftovers(folder, names);
  }
  SetWrite set(targets);
  set.write_temporaries(files);
  set.rename_into_place();
  for (const auto& [folder, names] : names_by_folder) flush_folder(folder);
  return targets;
}

std::filesystem::path write_file_whole(const fs::path& path, std::string text) {
  if (!path.has_filename()) throw error(fmt::format("{}: names a folder, not a file", path.string()));
  try {
    return write_file_set(path.parent_path(), {{path.filename(), std::move(text)}}).front();
  } catch (const error& e) {
    // A folder on the way that cannot be made names that folder: say which file it was for.
    if (std::string_view(e.what()).rfind(path.string(), 0) == 0) throw;
    throw error(fmt::format("{}: cannot write it: {}", path.string(), e.what()));
  }
}

}  // namespace exactune
