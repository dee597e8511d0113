#include "compile/host/host_compiler.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <exactune/error.hpp>

#include "compile/host/host_launcher.hpp"
#include "compile/host/host_toolchain.hpp"
#include "compile/host/host_translation_unit.hpp"
#include "compile/host/template_tree.hpp"
#include "compile/target_compiler.hpp"
#include "compile/template_includes.hpp"
#include "util/content_hash.hpp"
#include "util/embedded_files.hpp"
#include "util/process_liveness.hpp"

namespace exactune {

namespace fs = std::filesystem;
using namespace host_exec;

namespace {

constexpr std::string_view kShim = "kernel_templates/host_cuda.hpp";
constexpr std::string_view kRecordSuffix = ".host-kernel";  // a kernel's entry: the key of its shared object
constexpr std::string_view kLibrarySuffix = ".so";

// What every compile of this call shares.
struct HostBuildContext {
  const CompileCache& cache;
  const HostToolchain& toolchain;
  TemplateTree templates;
  fs::path extra_source_dir;
};

bool is_embedded(const std::string& path) {
  const auto& files = embedded_files();
  return std::any_of(files.begin(), files.end(), [&](const EmbeddedFile& f) { return f.path == path; });
}

std::string read_text_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(fmt::format("cannot read {}", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

// The sources a request compiles: the shim and the main file with what they include.
std::string sources_digest(const std::string& main_file, const HostBuildContext& context) {
  if (is_embedded(main_file)) {
    std::string per_file;
    for (const std::string& root : {std::string(kShim), main_file}) {
      for (const std::string& path : included_templates(root)) per_file += content_hash({path, embedded_file(path)});
    }
    return content_hash({"embedded", per_file});
  }
  const fs::path extra = context.extra_source_dir / main_file;
  if (!context.extra_source_dir.empty() && fs::is_regular_file(extra)) {
    return content_hash({"extra", read_text_file(extra), context.templates.digest});
  }
  throw error(fmt::format("'{}' is not an embedded kernel template{}", main_file,
                          context.extra_source_dir.empty()
                              ? std::string()
                              : fmt::format(" nor a file under {}", context.extra_source_dir.string())));
}

std::string request_key(const CompileRequest& request, const HostBuildContext& context) {
  return content_hash({"exactune-host-kernel-v1", context.toolchain.identity(),
                       sources_digest(request.main_file, context), request.main_file, request.name_expression,
                       fmt::format("{}", fmt::join(request.defines, "\n"))});
}

CompiledKernel host_kernel(const CompileRequest& request, const std::string& key,
                           std::shared_ptr<const Binary> library) {
  CompiledKernel kernel;
  kernel.name = request.name;
  kernel.target = kHostTarget;
  kernel.entry = launcher_symbol(key);
  kernel.binary = std::move(library);
  return kernel;
}

// The library as the kernels of it share it: named by its key, loaded by its
// path, its bytes left on disk (dlopen reads them).
std::shared_ptr<const Binary> library_binary(const CompileCache& cache, const std::string& library_key) {
  return std::make_shared<const Binary>(
      Binary{library_key, std::string(), cache.entry_path(library_key, kLibrarySuffix).string()});
}

// The shared objects of the cache found whole, by library key: dozens of
// kernels share one, which is checked once per call; null: not whole.
using CheckedLibraries = std::map<std::string, std::shared_ptr<const Binary>>;

// The shared object holding this kernel, when the cache has both the record and
// the library, whole: a damaged library is never handed to dlopen.
std::shared_ptr<const Binary> cached_library(const CompileCache& cache, const std::string& key,
                                             CheckedLibraries& checked) {
  const std::optional<std::string> library_key = cache.read(key, kRecordSuffix);
  if (!library_key) return nullptr;
  auto found = checked.find(*library_key);
  if (found == checked.end()) {
    std::shared_ptr<const Binary> whole;
    if (cache.whole_entry(*library_key, kLibrarySuffix)) whole = library_binary(cache, *library_key);
    found = checked.emplace(*library_key, std::move(whole)).first;
  }
  return found->second;
}

// One kernel to compile; identical requests share it.
struct PendingKernel {
  std::string key;
  const CompileRequest* request = nullptr;
  std::vector<std::size_t> request_indices;
};

struct BuildResult {
  bool ok = false;
  std::string log;
  double compile_ms = 0;
  std::shared_ptr<const Binary> library;  // shared by the batch's kernels
};

fs::path build_root(const CompileCache& cache) { return cache.directory() / "host-build"; }

// "<library key>.<pid>.<n>": the pid tells a killed run's folder from a running one's.
fs::path fresh_build_directory(const CompileCache& cache, const std::string& library_key) {
  static std::atomic<unsigned> counter{0};
  const fs::path dir = build_root(cache) / fmt::format("{}.{}.{}", library_key, ::getpid(), counter++);
  fs::create_directories(dir);
  return dir;
}

// The pid in a build folder's name, or 0 for a name not made by fresh_build_directory.
pid_t build_directory_owner(const std::string& name) {
  const std::size_t first_dot = name.find('.');
  const std::size_t second_dot = name.find('.', first_dot == std::string::npos ? name.size() : first_dot + 1);
  if (first_dot == std::string::npos || second_dot == std::string::npos) return 0;
  const std::string pid = name.substr(first_dot + 1, second_dot - first_dot - 1);
  if (pid.empty() || pid.size() > 9 || pid.find_first_not_of("0123456789") != std::string::npos) return 0;
  return static_cast<pid_t>(std::stol(pid));
}

// Compiles kernels that share their defines into one shared object and files
// it, with a record per kernel, in the cache.
BuildResult build_library(const std::vector<const PendingKernel*>& kernels, const HostBuildContext& context) {
  BuildResult result;
  std::vector<std::string> keys;
  std::vector<LauncherSpec> launchers;
  for (const PendingKernel* kernel : kernels) {
    keys.push_back(kernel->key);
    launchers.push_back({launcher_symbol(kernel->key), kernel->request->main_file, kernel->request->name_expression,
                         kernel->request->name});
  }
  const std::string library_key = content_hash({"exactune-host-library-v1", fmt::format("{}", fmt::join(keys, ","))});
  fs::path build_dir;
  try {
    build_dir = fresh_build_directory(context.cache, library_key);
    SharedObjectBuild build;
    build.source = build_dir / "kernels.cpp";
    build.output = build_dir / "kernels.so";
    build.include_dirs = {context.templates.root};
    if (!context.extra_source_dir.empty()) build.include_dirs.push_back(context.extra_source_dir);
    build.defines = kernels.front()->request->defines;
    {
      std::ofstream tu(build.source, std::ios::binary);
      tu << render_translation_unit(launchers);
      if (!tu) throw error(fmt::format("cannot write {}", build.source.string()));
    }
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult compiled = build_shared_object(context.toolchain, build);
    result.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    result.log = compiled.output;
    if (compiled.exit_code == 0) {
      context.cache.write(library_key, kLibrarySuffix, read_text_file(build.output));
      for (const std::string& key : keys) context.cache.write(key, kRecordSuffix, library_key);
      result.library = library_binary(context.cache, library_key);
      result.ok = true;
    }
  } catch (const std::exception& e) {
    result.log += fmt::format("\n{}", e.what());
  }
  std::error_code ignored;
  if (!build_dir.empty()) fs::remove_all(build_dir, ignored);
  return result;
}

// Kernels with the same defines can share a translation unit. Batches are sized
// so that all jobs get work, but never above max_batch.
std::vector<std::vector<const PendingKernel*>> plan_batches(const std::vector<PendingKernel>& pending, int jobs,
                                                            std::size_t max_batch) {
  std::map<std::vector<std::string>, std::vector<const PendingKernel*>> by_defines;
  for (const PendingKernel& kernel : pending) by_defines[kernel.request->defines].push_back(&kernel);
  const std::size_t per_job = (pending.size() + static_cast<std::size_t>(jobs) - 1) / static_cast<std::size_t>(jobs);
  const std::size_t target = std::clamp<std::size_t>(per_job, 1, std::max<std::size_t>(max_batch, 1));

  std::vector<std::vector<const PendingKernel*>> batches;
  for (const auto& [defines, kernels] : by_defines) {
    const std::size_t count = (kernels.size() + target - 1) / target;
    for (std::size_t b = 0; b < count; ++b) {  // even split: sizes differ by at most one
      const std::size_t begin = kernels.size() * b / count, end = kernels.size() * (b + 1) / count;
      batches.emplace_back(kernels.begin() + static_cast<std::ptrdiff_t>(begin),
                           kernels.begin() + static_cast<std::ptrdiff_t>(end));
    }
  }
  return batches;
}

void parallel_for(std::size_t count, int jobs, const std::function<void(std::size_t)>& body) {
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < count; i = next++) body(i);
  };
  std::vector<std::thread> helpers;
  const std::size_t threads = std::min<std::size_t>(static_cast<std::size_t>(jobs), count);
  for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(work);
  work();
  for (std::thread& helper : helpers) helper.join();
}

void record_build(const PendingKernel& kernel, const BuildResult& build, std::size_t batch_size,
                  std::vector<CompileOutcome>& outcomes) {
  for (std::size_t index : kernel.request_indices) {
    CompileOutcome& outcome = outcomes[index];
    outcome.ok = build.ok;
    outcome.log = build.log;
    outcome.compile_ms = build.compile_ms / static_cast<double>(batch_size);
    if (build.ok) outcome.kernel = host_kernel(outcome.request, kernel.key, build.library);
  }
}

// Compiles the batches in parallel, then retries the kernels of every failed
// batch one by one.
void build_all(const std::vector<PendingKernel>& pending, const HostBuildContext& context,
               const HostCompileSettings& settings, int jobs, std::vector<CompileOutcome>& outcomes) {
  const auto batches = plan_batches(pending, jobs, settings.max_batch);
  std::vector<BuildResult> results(batches.size());
  parallel_for(batches.size(), jobs, [&](std::size_t b) { results[b] = build_library(batches[b], context); });

  std::vector<const PendingKernel*> retry;
  for (std::size_t b = 0; b < batches.size(); ++b) {
    if (results[b].ok || batches[b].size() == 1) {
      for (const PendingKernel* kernel : batches[b]) record_build(*kernel, results[b], batches[b].size(), outcomes);
    } else {
      retry.insert(retry.end(), batches[b].begin(), batches[b].end());
    }
  }
  std::vector<BuildResult> alone(retry.size());
  parallel_for(retry.size(), jobs, [&](std::size_t i) { alone[i] = build_library({retry[i]}, context); });
  for (std::size_t i = 0; i < retry.size(); ++i) record_build(*retry[i], alone[i], 1, outcomes);
}

void fail(CompileOutcome& outcome, const std::string& why) {
  outcome.ok = false;
  outcome.log = why;
}

}  // namespace

void remove_leftovers_of_dead_processes(const CompileCache& cache) {
  cache.remove_temporaries_of_dead_processes();
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(build_root(cache), ec)) {
    const pid_t owner = build_directory_owner(entry.path().filename().string());
    if (owner > 0 && process_is_gone(owner)) {
      std::error_code ignored;
      fs::remove_all(entry.path(), ignored);
    }
  }
}

namespace {

// Once per process and cache: leftovers appear only when a run dies, so one
// look when this run starts building is enough.
void remove_leftovers_once(const CompileCache& cache) {
  static std::mutex mutex;
  static std::set<fs::path> cleaned;
  std::lock_guard lock(mutex);
  if (cleaned.insert(cache.directory()).second) remove_leftovers_of_dead_processes(cache);
}

}  // namespace

std::vector<CompileOutcome> compile_for_host(const std::vector<CompileRequest>& requests, const CompileCache& cache,
                                             const HostCompileSettings& settings) {
  std::vector<CompileOutcome> outcomes(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) outcomes[i].request = requests[i];
  if (requests.empty()) return outcomes;

  remove_leftovers_once(cache);
  std::optional<HostBuildContext> context;
  try {
    context.emplace(HostBuildContext{cache, host_toolchain(), materialise_templates(cache), settings.extra_source_dir});
  } catch (const std::exception& e) {
    for (CompileOutcome& outcome : outcomes) fail(outcome, e.what());
    return outcomes;
  }

  std::vector<PendingKernel> pending;
  std::map<std::string, std::size_t> pending_by_key;
  CheckedLibraries checked_libraries;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const CompileRequest& request = requests[i];
    if (request.target != kHostTarget) {
      fail(outcomes[i],
           fmt::format("target '{}' is not 'host': the host compiler builds only for the CPU", request.target));
      continue;
    }
    std::string key;
    try {
      key = request_key(request, *context);
    } catch (const std::exception& e) {
      fail(outcomes[i], e.what());
      continue;
    }
    if (std::shared_ptr<const Binary> library = cached_library(cache, key, checked_libraries)) {
      outcomes[i].ok = true;
      outcomes[i].cache_hit = true;
      outcomes[i].kernel = host_kernel(request, key, std::move(library));
      continue;
    }
    auto [found, inserted] = pending_by_key.emplace(key, pending.size());
    if (inserted) pending.push_back({key, &request, {}});
    pending[found->second].request_indices.push_back(i);
  }

  const int jobs =
      settings.jobs > 0 ? settings.jobs : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  if (!pending.empty()) build_all(pending, *context, settings, jobs, outcomes);
  return outcomes;
}

std::vector<CompileOutcome> compile_for_host(const std::vector<CompileRequest>& requests, const CompileCache& cache,
                                             int jobs) {
  HostCompileSettings settings;
  settings.jobs = jobs;
  return compile_for_host(requests, cache, settings);
}

namespace {

// The host compiler as compile_all's compiler of target "host".
class HostTargetCompiler final : public TargetCompiler {
 public:
  std::string target() const override { return kHostTarget; }
  std::vector<CompileOutcome> compile(const std::vector<CompileRequest>& requests, const CompileCache& cache,
                                      int jobs) const override {
    return compile_for_host(requests, cache, jobs);
  }
};

const bool kRegistered = register_target_compiler(std::make_unique<HostTargetCompiler>());

}  // namespace

}  // namespace exactune
