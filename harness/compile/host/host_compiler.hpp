// Compiles CompileRequests whose target is "host": the kernel templates become
// host C++ (through kernel_templates/host_cuda.hpp) in shared objects that the
// CPU backend loads. Requests are batched many to a translation unit, batches
// are compiled in parallel, and each kernel is cached on its own key, so a new
// variant compiles only itself. A failed batch is retried one request at a time,
// so that a compile error is pinned to its request and the others still succeed.
// A cached library is used only when the cache finds it whole (compile_cache.hpp),
// and a build starts by removing what killed runs left in the cache.
#pragma once
#include <cstddef>
#include <filesystem>
#include <vector>

#include <exactune/compile_request.hpp>

#include "compile/compile_cache.hpp"

namespace exactune {

struct HostCompileSettings {
  int jobs = 0;                // parallel compiler processes; 0: one per hardware thread
  std::size_t max_batch = 48;  // kernels per shared object at most
  // Tests only: a directory searched for main_files that are not embedded (and
  // passed with -I). Such a file's key covers its own text and every embedded
  // template, not the files it includes from this directory.
  std::filesystem::path extra_source_dir;
};

// One outcome per request, in order. CompiledKernel: target "host", entry = the
// launcher symbol (compile/host/host_launcher.hpp), binary = the shared object
// in the cache, shared by the kernels of it (id: its cache name, path: where it
// lies, bytes empty), resources zero (a host compiler reports none).
// compile_ms is the request's share of its batch's compile time.
std::vector<CompileOutcome> compile_for_host(const std::vector<CompileRequest>& requests, const CompileCache& cache,
                                             const HostCompileSettings& settings);
std::vector<CompileOutcome> compile_for_host(const std::vector<CompileRequest>& requests, const CompileCache& cache,
                                             int jobs);

// Removes the cache's build folders and temporary files whose process no longer
// runs (a run killed mid-build). compile_for_host does it once per process and cache.
void remove_leftovers_of_dead_processes(const CompileCache& cache);

}  // namespace exactune
