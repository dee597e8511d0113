// The on-disk compile cache. One entry per compiled kernel, keyed by a hash of
// everything that can change its bits: the template sources it includes, the
// instantiation, the options, the target and the compiler's version. A new
// variant adds an entry and invalidates nothing else.
//
// Every entry has a checksum record beside it (<entry>.sum: its size and
// content hash), written after the entry. A lookup checks both before the
// entry is used, so that a truncated, flipped or emptied file, or one of an
// older exactune without a record, is reported once, removed and rebuilt,
// never used. Temporary files carry the writer's pid, so that what a killed
// run left behind can be told from what a running one is writing.
#pragma once
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace exactune {

class CompileCache {
 public:
  // $EXACTUNE_CACHE_DIR, else $XDG_CACHE_HOME/exactune, else ~/.cache/exactune.
  static std::filesystem::path default_directory();

  // Creates the folder when need be; throws exactune::input_error "<dir>:
  // cannot create the compile cache: <why>" when it cannot.
  explicit CompileCache(std::filesystem::path directory);
  // Throws exactune::input_error "<dir>: cannot write to the compile cache:
  // <why>" unless a file can be created in it: checked before a run that
  // compiles, so that a cache it cannot write is said once, with the system's
  // reason, not taken for every kernel failing to build. (A runtime that only
  // reads a prepared cache need not write it.)
  void require_writable() const;
  const std::filesystem::path& directory() const { return directory_; }

  // The path an entry with this key and file suffix lives at (it may not exist).
  std::filesystem::path entry_path(std::string_view key, std::string_view suffix) const;
  // The entry's bytes when it exists and is whole. A damaged entry is reported
  // on stderr, removed, and read as absent. `content_hash`, when given, gets
  // the bytes' content hash (util/content_hash.hpp), which the check computes
  // anyway: a binary's id costs no second pass over its bytes.
  std::optional<std::string> read(std::string_view key, std::string_view suffix,
                                  std::string* content_hash = nullptr) const;
  // The entry's path, checked as read() checks it: for entries used by path
  // (a shared object to dlopen), which must not be opened before the check.
  std::optional<std::filesystem::path> whole_entry(std::string_view key, std::string_view suffix) const;
  // The entry, then its checksum record, each written to a temporary file,
  // synced and renamed, so a killed run never leaves half of either.
  void write(std::string_view key, std::string_view suffix, std::string_view bytes) const;

  // Removes the temporary files under the cache whose writer no longer runs.
  void remove_temporaries_of_dead_processes() const;

  // How many entries read() and whole_entry() have read through this object
  // and its copies: what tells that a lookup reads a batch's shared binary
  // once, not once per kernel.
  std::size_t entries_read() const { return entries_read_->load(); }

 private:
  std::optional<std::string> read_whole(const std::filesystem::path& path, std::string* content_hash) const;

  std::filesystem::path directory_;
  std::shared_ptr<std::atomic<std::size_t>> entries_read_ = std::make_shared<std::atomic<std::size_t>>(0);
};

}  // namespace exactune
