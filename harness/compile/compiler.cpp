#include "compile/compiler.hpp"

#include <fmt/format.h>
#include <nvrtc.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include <exactune/error.hpp>

#include "compile/nvrtc_compiler.hpp"
#include "compile/nvrtc_library.hpp"
#include "compile/target_compiler.hpp"
#include "util/content_hash.hpp"

namespace exactune {

namespace {

int worker_count(const CompileOptions& options, std::size_t work) {
  const int hardware = std::max(1u, std::thread::hardware_concurrency());
  const int wanted = options.jobs > 0 ? options.jobs : hardware;
  return static_cast<int>(std::min<std::size_t>(wanted, std::max<std::size_t>(work, 1)));
}

// Calls work(0 .. count-1), each index once, on `workers` threads.
void run_in_parallel(std::size_t count, int workers, const std::function<void(std::size_t)>& work) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t k; (k = next++) < count;) work(k);
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < workers; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
}

// Each NVRTC program pays its front end, builtin headers and setup once, so
// misses of one program go into batches. A batch is as large as keeps every
// worker busy with about two batches (the last ones finish together), and at
// most kMaxBatch: a kernel's SASS is looked up in its batch's whole cubin, and
// NVRTC's working memory grows with the program. The default space of the
// first family cold, sm_90, 2 cores (`/usr/bin/time exactune compile --family
// F --cache-dir EMPTY --no-table`): batches of 32, 79.1 s and 399 MB peak; of
// 16, 75.7 s and 281 MB; of 8, 76.3 s and 247 MB. Every kernel's machine code
// is the same whatever its batch (.text compared for all 1125).
constexpr std::size_t kMaxBatch = kMaxKernelsPerProgram;

// What a program without a compiler for the requests' target gets: a failure
// that names it, each request on its own.
std::vector<CompileOutcome> no_compiler_for(const std::vector<CompileRequest>& requests) {
  std::vector<CompileOutcome> outcomes;
  for (const CompileRequest& r : requests) {
    CompileOutcome o;
    o.request = r;
    o.ok = false;
    o.log = fmt::format(
        "no compiler for target '{}' is linked into this program (NVRTC serves sm_* targets; "
        "others need their compiler's library, e.g. compile/host/ for \"host\")",
        r.target);
    outcomes.push_back(std::move(o));
  }
  return outcomes;
}

std::vector<std::vector<std::size_t>> nvrtc_batches(const std::vector<CompileRequest>& requests,
                                                    const std::vector<std::size_t>& misses, int workers) {
  const std::size_t per_worker = (misses.size() + 2 * workers - 1) / (2 * static_cast<std::size_t>(workers));
  const std::size_t size = std::clamp<std::size_t>(per_worker, 1, kMaxBatch);
  std::vector<std::vector<std::size_t>> programs;  // misses grouped by program, in request order
  for (std::size_t i : misses) {
    auto same = std::find_if(programs.begin(), programs.end(), [&](const std::vector<std::size_t>& program) {
      return same_nvrtc_program(requests[program.front()], requests[i]);
    });
    if (same == programs.end()) {
      programs.push_back({i});
    } else {
      same->push_back(i);
    }
  }
  std::vector<std::vector<std::size_t>> batches;
  for (const std::vector<std::size_t>& program : programs) {
    for (std::size_t first = 0; first < program.size(); first += size) {
      batches.emplace_back(program.begin() + first, program.begin() + std::min(program.size(), first + size));
    }
  }
  return batches;
}

}  // namespace

std::vector<CompileOutcome> compile_all(const std::vector<CompileRequest>& requests, const CompileCache& cache,
                                        const CompileOptions& options) {
  std::vector<CompileOutcome> outcomes(requests.size());
  std::mutex progress_mutex;
  std::size_t done = 0;
  auto finished = [&](std::size_t i) {
    std::lock_guard lock(progress_mutex);
    ++done;
    if (options.on_progress) options.on_progress({done, requests.size(), &outcomes[i], i});
  };

  // A target compiler (target_compiler.hpp) takes all its requests together: the
  // host compiler batches many kernels per translation unit. NVRTC compiles
  // batches of one program's kernels, in parallel. A target no compiler of this
  // program serves fails alone, as a compile error does.
  std::map<std::string, std::vector<std::size_t>> by_target;
  std::vector<std::size_t> gpu;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    (is_nvrtc_target(requests[i].target) ? gpu : by_target[requests[i].target]).push_back(i);
  }
  for (const auto& [target, indices] : by_target) {
    const TargetCompiler* compiler = target_compiler(target);
    std::vector<CompileRequest> batch;
    for (std::size_t i : indices) batch.push_back(requests[i]);
    std::vector<CompileOutcome> compiled =
        compiler ? compiler->compile(batch, cache, worker_count(options, batch.size())) : no_compiler_for(batch);
    for (std::size_t k = 0; k < indices.size(); ++k) {
      outcomes[indices[k]] = std::move(compiled[k]);
      finished(indices[k]);
    }
  }

  // No NVRTC to be had (compile/nvrtc_library.hpp): each GPU request fails
  // with why, as a compile error does, rather than a worker thread throwing.
  if (!gpu.empty()) {
    try {
      nvrtc();
    } catch (const std::exception& e) {
      for (std::size_t i : gpu) {
        outcomes[i].request = requests[i];
        outcomes[i].ok = false;
        outcomes[i].log = e.what();
        finished(i);
      }
      return outcomes;
    }
  }

  // Cache hits first, in parallel (each reads and checks its entry, and the
  // first of a cubin's kernels reads and checks the cubin for all of them);
  // then the misses, a batch per NVRTC program, so that every worker stays busy.
  CachedBinaries binaries(cache);
  std::vector<std::size_t> misses;
  std::mutex misses_mutex;
  run_in_parallel(gpu.size(), worker_count(options, gpu.size()), [&](std::size_t k) {
    if (std::optional<CompileOutcome> hit = cached_nvrtc_outcome(requests[gpu[k]], cache, binaries)) {
      outcomes[gpu[k]] = std::move(*hit);
      finished(gpu[k]);
    } else {
      std::lock_guard lock(misses_mutex);
      misses.push_back(gpu[k]);
    }
  });
  std::sort(misses.begin(), misses.end());
  const std::vector<std::vector<std::size_t>> batches =
      nvrtc_batches(requests, misses, worker_count(options, misses.size()));
  run_in_parallel(batches.size(), worker_count(options, batches.size()), [&](std::size_t b) {
    std::vector<CompileRequest> batch;
    for (std::size_t i : batches[b]) batch.push_back(requests[i]);
    std::vector<CompileOutcome> compiled = compile_nvrtc_batch(batch, cache);
    for (std::size_t k = 0; k < batches[b].size(); ++k) {
      outcomes[batches[b][k]] = std::move(compiled[k]);
      finished(batches[b][k]);
    }
  });
  return outcomes;
}

std::shared_ptr<const Binary> binary_in_memory(std::string bytes) {
  std::string id = content_hash({bytes});
  return std::make_shared<const Binary>(Binary{std::move(id), std::move(bytes), std::string()});
}

}  // namespace exactune
