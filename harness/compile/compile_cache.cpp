#include "compile/compile_cache.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <exactune/error.hpp>

namespace exactune {

namespace fs = std::filesystem;

fs::path CompileCache::default_directory() {
  if (const char* dir = std::getenv("EXACTUNE_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "exactune";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "exactune";
  return fs::temp_directory_path() / "exactune-cache";
}

CompileCache::CompileCache(fs::path directory) : directory_(std::move(directory)) {
  std::error_code ec;
  fs::create_directories(directory_, ec);
  if (ec) throw error(fmt::format("cannot create the compile cache {}: {}", directory_.string(), ec.message()));
}

fs::path CompileCache::entry_path(std::string_view key, std::string_view suffix) const {
  // Two-character fan-out keeps directories small on long-lived caches.
  return directory_ / std::string(key.substr(0, 2)) / (std::string(key) + std::string(suffix));
}

std::optional<std::string> CompileCache::read(std::string_view key, std::string_view suffix) const {
  std::ifstream in(entry_path(key, suffix), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return std::move(bytes).str();
}

void CompileCache::write(std::string_view key, std::string_view suffix, std::string_view bytes) const {
  const fs::path path = entry_path(key, suffix);
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  const fs::path temporary = path.string() + fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw error(fmt::format("cannot write the cache entry {}", temporary.string()));
  }
  fs::rename(temporary, path, ec);
  if (ec) throw error(fmt::format("cannot move {} into the cache: {}", temporary.string(), ec.message()));
}

std::string content_hash(std::initializer_list<std::string_view> parts) {
  // FNV-1a over two 64-bit lanes with different offset bases.
  std::uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  constexpr std::uint64_t prime = 0x100000001b3ull;
  auto feed = [&](unsigned char c) {
    a = (a ^ c) * prime;
    b = (b ^ static_cast<unsigned char>(c + 0x5b)) * prime;
  };
  for (std::string_view part : parts) {
    const std::uint64_t n = part.size();
    for (int i = 0; i < 8; ++i) feed(static_cast<unsigned char>(n >> (8 * i)));
    for (char c : part) feed(static_cast<unsigned char>(c));
  }
  return fmt::format("{:016x}{:016x}", a, b);
}

}  // namespace exactune
