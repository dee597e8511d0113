// The compile stage: turns requests into kernels, in parallel, through the
// on-disk cache. GPU targets go to NVRTC (nvrtc_compiler), "host" to the host
// C++ compiler (backends/cpu/host_compiler). A failed compile is an outcome with
// its log, never an exception: one broken variant does not stop the others.
#pragma once
#include <functional>
#include <vector>

#include "compile/compile_cache.hpp"
#include <exactune/compile_request.hpp>

namespace exactune {

struct CompileProgress {
  std::size_t done = 0;
  std::size_t total = 0;
  const CompileOutcome* last = nullptr;
};

struct CompileOptions {
  int jobs = 0;  // 0: one per hardware thread
  std::function<void(const CompileProgress&)> on_progress;
};

// The GPU architectures this NVRTC compiles for, as numbers (sm_90 is 90), ascending.
std::vector<int> nvrtc_supported_archs();

std::vector<CompileOutcome> compile_all(const std::vector<CompileRequest>& requests, const CompileCache& cache,
                                        const CompileOptions& options = {});

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
