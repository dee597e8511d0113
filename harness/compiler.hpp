// The compile stage: turns requests into kernels, in parallel, through the
// on-disk cache. GPU targets go to NVRTC (nvrtc_compiler), "host" to the host
// C++ compiler (host_exec/host_compiler). A failed compile is an outcome with
// its log, never an exception: one broken variant does not stop the others.
#pragma once
#include <functional>
#include <vector>

#include "compile_cache.hpp"
#include "compile_request.hpp"

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

std::vector<CompileOutcome> compile_all(const std::vector<CompileRequest>& requests, const CompileCache& cache,
                                        const CompileOptions& options = {});

// The embedded template files that `main_file` reaches through #include "...",
// itself first: what a cache key must cover.
std::vector<std::string> included_templates(const std::string& main_file);

}  // namespace exactune
