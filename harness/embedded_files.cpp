#include "embedded_files.hpp"

#include <string>

#include "error.hpp"

namespace exactune {

std::string_view embedded_file(std::string_view path) {
  for (const EmbeddedFile& file : embedded_files()) {
    if (file.path == path) return file.text;
  }
  throw error("no embedded file '" + std::string(path) + "' (the build embeds kernel_templates/ and shapes/default.yaml)");
}

}  // namespace exactune
