#include "runtime/runtime_tables.hpp"

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>

#include <exactune/error.hpp>

#include "util/embedded_files.hpp"
#include "util/text_file.hpp"

namespace exactune {
namespace {

RuntimeTables load_tables() {
  const char* dir = std::getenv(kTablesDirVariable);
  if (dir && *dir) {
    const std::string path = (std::filesystem::path(dir) / kTablesFile).string();
    return parse_runtime_tables(read_text_file(path, "the runtime tables"), path);
  }
  return parse_runtime_tables(embedded_file(kEmbeddedTablesPath), std::string("built-in ") + kEmbeddedTablesPath);
}

}  // namespace

const RuntimeTables& runtime_tables() {
  static std::once_flag once;
  static std::optional<RuntimeTables> tables;
  static std::string failure;
  std::call_once(once, [] {
    try {
      tables = load_tables();
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  if (!tables) throw input_error(failure);
  return *tables;
}

}  // namespace exactune
