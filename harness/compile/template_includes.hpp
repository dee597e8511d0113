// The #include tree of the embedded kernel templates: which embedded files a
// kernel's main template reaches. NVRTC's cache key and the host compiler's
// both cover exactly these files, so that an edit to any of them, and to no
// other, compiles the kernel again.
#pragma once
#include <string>
#include <vector>

namespace exactune {

// One #include "..." of an embedded template: the name as written, and the
// embedded file it resolves to. A name resolves as the host compiler would
// resolve it: beside the including file first, then from the repository root
// (so a family's kernels reach the shared kernel_templates/ and their own folder).
struct TemplateInclude {
  std::string spelling;
  std::string path;
};

// The embedded template files that `main_file` reaches through #include "...",
// itself first: what a cache key must cover.
std::vector<std::string> included_templates(const std::string& main_file);
// Every include edge below `main_file`, each (spelling, path) once.
std::vector<TemplateInclude> template_includes(const std::string& main_file);

}  // namespace exactune
