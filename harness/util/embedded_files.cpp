#include "util/embedded_files.hpp"

#include <string>

#include <exactune/error.hpp>
#include <exactune/kernel_sources.hpp>

namespace exactune {
namespace {

std::vector<EmbeddedFile>& files() {
  static std::vector<EmbeddedFile> all = built_in_embedded_files();
  return all;
}

}  // namespace

const std::vector<EmbeddedFile>& embedded_files() { return files(); }

bool add_kernel_source(std::string_view path, std::string_view text) {
  for (const EmbeddedFile& file : files()) {
    if (file.path == path) throw error("kernel source '" + std::string(path) + "' is added twice");
  }
  files().push_back({path, text});
  return true;
}

std::string_view embedded_file(std::string_view path) {
  for (const EmbeddedFile& file : embedded_files()) {
    if (file.path == path) return file.text;
  }
  throw error("no embedded file '" + std::string(path) +
              "' (the build embeds kernel_templates/ and what each family lists)");
}

}  // namespace exactune
