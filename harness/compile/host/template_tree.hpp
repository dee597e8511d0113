// The embedded kernel templates as files on disk, for the host compiler's -I:
// written once into the compile cache, in a directory named by their content.
#pragma once
#include <filesystem>
#include <string>

#include "compile/compile_cache.hpp"

namespace exactune::host_exec {

struct TemplateTree {
  std::filesystem::path root;  // holds kernel_templates/...; pass it with -I
  std::string digest;          // content hash of every embedded template
};

// Writes the embedded kernel_templates/* under <cache>/host-templates/<digest>/
// unless that directory exists already. Safe against concurrent processes.
TemplateTree materialise_templates(const CompileCache& cache);

}  // namespace exactune::host_exec
