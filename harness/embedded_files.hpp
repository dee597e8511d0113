// Files carried inside the binary (kernel_templates/*, shapes/default.yaml),
// generated at build time by cmake/embed_files.cmake.
#pragma once
#include <string_view>
#include <vector>

namespace exactune {

struct EmbeddedFile {
  std::string_view path;  // relative to the repository root, e.g. "kernel_templates/arith.cuh"
  std::string_view text;
};

const std::vector<EmbeddedFile>& embedded_files();
// Throws exactune::error when no embedded file has this path.
std::string_view embedded_file(std::string_view path);

}  // namespace exactune
