// The on-disk compile cache. One entry per compiled kernel, keyed by a hash of
// everything that can change its bits: the template sources it includes, the
// instantiation, the options, the target and the compiler's version. A new
// variant adds an entry and invalidates nothing else.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace exactune {

class CompileCache {
 public:
  // $EXACTUNE_CACHE_DIR, else $XDG_CACHE_HOME/exactune, else ~/.cache/exactune.
  static std::filesystem::path default_directory();

  explicit CompileCache(std::filesystem::path directory);
  const std::filesystem::path& directory() const { return directory_; }

  // The path an entry with this key and file suffix lives at (it may not exist).
  std::filesystem::path entry_path(std::string_view key, std::string_view suffix) const;
  std::optional<std::string> read(std::string_view key, std::string_view suffix) const;
  // Written to a temporary file and renamed, so a killed run never leaves half an entry.
  void write(std::string_view key, std::string_view suffix, std::string_view bytes) const;

 private:
  std::filesystem::path directory_;
};

// 128-bit FNV-1a of the parts, as 32 hex digits; parts are length-prefixed so
// that ("ab","c") and ("a","bc") differ.
std::string content_hash(std::initializer_list<std::string_view> parts);

}  // namespace exactune
