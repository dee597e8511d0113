#include "compile/compile_cache.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <exactune/error.hpp>

#include "util/content_hash.hpp"
#include "util/process_liveness.hpp"

namespace exactune {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kChecksumSuffix = ".sum";
constexpr std::string_view kChecksumFormat = "exactune-cache-checksum-v1";
constexpr std::string_view kTemporaryMarker = ".tmp";

fs::path checksum_path(const fs::path& entry) { return entry.string() + std::string(kChecksumSuffix); }

std::string checksum_record(std::string_view bytes) {
  return fmt::format("{} {} {}\n", kChecksumFormat, bytes.size(), content_hash({bytes}));
}

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(bytes).str();
}

// Why `bytes` are not what the record says was written; empty when they are,
// and then `hash` holds their content hash.
std::string damage(std::string_view bytes, const std::optional<std::string>& record, std::string& hash) {
  if (!record) return "no checksum record: written by an older exactune, or by a run killed while writing it";
  std::istringstream fields(*record);
  std::string format, recorded;
  std::size_t size = 0;
  if (!(fields >> format >> size >> recorded) || format != kChecksumFormat) return "its checksum record is unreadable";
  if (bytes.empty() && size != 0) return fmt::format("empty, where {} bytes were written", size);
  if (bytes.size() != size) return fmt::format("{} bytes, where {} were written", bytes.size(), size);
  hash = content_hash({bytes});
  if (hash != recorded) return "its bytes do not match their checksum";
  return {};
}

// Removes a damaged entry and its record, and says so once: of threads that
// found it together, the one whose removal took it.
void discard_damaged(const fs::path& entry, const std::string& why) {
  std::error_code ec;
  const bool removed = fs::remove(entry, ec);
  std::error_code ignored;
  fs::remove(checksum_path(entry), ignored);
  if (removed || ec) {
    std::fprintf(stderr, "exactune: cache entry %s is damaged (%s); rebuilding\n", entry.c_str(), why.c_str());
  }
}

// A name unique to this process and call: two threads writing one entry must
// not share a temporary.
fs::path temporary_for(const fs::path& path) {
  static std::atomic<unsigned> counter{0};
  return path.string() + fmt::format("{}{}.{}", kTemporaryMarker, ::getpid(), counter++);
}

// Writes `bytes` to a new temporary beside `path`, synced to the disk.
fs::path write_synced_temporary(const fs::path& path, std::string_view bytes) {
  const fs::path temporary = temporary_for(path);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw error(fmt::format("cannot write the cache entry {}: {}", temporary.string(), std::strerror(errno)));
  int failure = 0;
  for (std::size_t written = 0; written < bytes.size() && failure == 0;) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n > 0) {
      written += static_cast<std::size_t>(n);
    } else if (n == 0 || errno != EINTR) {
      failure = n == 0 ? EIO : errno;
    }
  }
  if (failure == 0 && ::fsync(fd) != 0) failure = errno;
  ::close(fd);
  if (failure != 0) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw error(fmt::format("cannot write the cache entry {}: {}", temporary.string(), std::strerror(failure)));
  }
  return temporary;
}

void move_into_place(const fs::path& temporary, const fs::path& path) {
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw error(fmt::format("cannot move {} into the cache: {}", temporary.string(), ec.message()));
  }
}

// The pid a temporary's name carries ("<name>.tmp<pid>" then nothing, '.' or
// '-'), or 0 for a name that is no temporary.
pid_t temporary_owner(const std::string& name) {
  const std::size_t at = name.rfind(kTemporaryMarker);
  if (at == std::string::npos) return 0;
  const std::size_t first = at + kTemporaryMarker.size();
  std::size_t end = first;
  while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
  if (end == first || end - first > 9) return 0;
  if (end < name.size() && name[end] != '.' && name[end] != '-') return 0;
  return static_cast<pid_t>(std::stol(name.substr(first, end - first)));
}

void remove_if_abandoned(const fs::directory_entry& entry) {
  const pid_t owner = temporary_owner(entry.path().filename().string());
  if (owner > 0 && process_is_gone(owner)) {
    std::error_code ignored;
    fs::remove_all(entry.path(), ignored);
  }
}

}  // namespace

fs::path CompileCache::default_directory() {
  if (const char* dir = std::getenv("EXACTUNE_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "exactune";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "exactune";
  return fs::temp_directory_path() / "exactune-cache";
}

CompileCache::CompileCache(fs::path directory) : directory_(std::move(directory)) {
  std::error_code ec;
  fs::create_directories(directory_, ec);
  if (ec) throw input_error(fmt::format("{}: cannot create the compile cache: {}", directory_.string(), ec.message()));
}

void CompileCache::require_writable() const {
  // Named as a temporary of this process, so that a probe a killed run left is removed as its temporaries are.
  const fs::path probe = temporary_for(directory_ / "write-probe");
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw input_error(
        fmt::format("{}: cannot write to the compile cache: {}", directory_.string(), std::strerror(errno)));
  }
  ::close(fd);
  std::error_code ignored;
  fs::remove(probe, ignored);
}

fs::path CompileCache::entry_path(std::string_view key, std::string_view suffix) const {
  // Two-character fan-out keeps directories small on long-lived caches.
  return directory_ / std::string(key.substr(0, 2)) / (std::string(key) + std::string(suffix));
}

std::optional<std::string> CompileCache::read_whole(const fs::path& path, std::string* content_hash) const {
  ++*entries_read_;
  std::optional<std::string> bytes = read_file(path);
  if (!bytes) return std::nullopt;
  std::string hash;
  const std::string why = damage(*bytes, read_file(checksum_path(path)), hash);
  if (why.empty()) {
    if (content_hash) *content_hash = std::move(hash);
    return bytes;
  }
  discard_damaged(path, why);
  return std::nullopt;
}

std::optional<std::string> CompileCache::read(std::string_view key, std::string_view suffix,
                                              std::string* content_hash) const {
  return read_whole(entry_path(key, suffix), content_hash);
}

std::optional<fs::path> CompileCache::whole_entry(std::string_view key, std::string_view suffix) const {
  fs::path path = entry_path(key, suffix);
  if (!read_whole(path, nullptr)) return std::nullopt;
  return path;
}

void CompileCache::write(std::string_view key, std::string_view suffix, std::string_view bytes) const {
  const fs::path path = entry_path(key, suffix);
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  // Both files are on disk before either is renamed: the two renames follow
  // each other closely, so a reader rarely finds the new entry without its record
  // (and one that does only rebuilds it).
  const fs::path entry_temporary = write_synced_temporary(path, bytes);
  fs::path record_temporary;
  try {
    record_temporary = write_synced_temporary(checksum_path(path), checksum_record(bytes));
  } catch (...) {
    fs::remove(entry_temporary, ec);
    throw;
  }
  try {
    move_into_place(entry_temporary, path);
  } catch (...) {
    fs::remove(record_temporary, ec);
    throw;
  }
  move_into_place(record_temporary, checksum_path(path));
}

void CompileCache::remove_temporaries_of_dead_processes() const {
  // Temporaries lie two levels down: entries' in their fan-out folder, the
  // host compiler's template trees' in host-templates/. Nothing deeper is named
  // with a pid.
  std::error_code ec;
  for (const fs::directory_entry& top : fs::directory_iterator(directory_, ec)) {
    remove_if_abandoned(top);
    std::error_code inner;
    if (!top.is_directory(inner)) continue;
    for (const fs::directory_entry& entry : fs::directory_iterator(top.path(), inner)) remove_if_abandoned(entry);
  }
}

}  // namespace exactune
