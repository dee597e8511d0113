#include "compile/compiler.hpp"

#include <nvrtc.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <optional>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "util/embedded_files.hpp"
#include "backends/cpu/host_compiler.hpp"
#include "compile/nvrtc_compiler.hpp"
#include <exactune/error.hpp>

namespace exactune {

namespace {

// The file named by a line `#include "name"` (spaces allowed around '#'), or "".
// No std::regex here: it crashes when a host process (PyTorch) brings another
// C++ runtime's locale facets, and the C ABI runs inside such processes.
std::string quoted_include(const std::string& line) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line[i] != '#') return {};
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string::npos || line.compare(i, 7, "include") != 0) return {};
  i = line.find_first_not_of(" \t", i + 7);
  if (i == std::string::npos || line[i] != '"') return {};
  const std::size_t end = line.find('"', i + 1);
  return end == std::string::npos ? std::string() : line.substr(i + 1, end - i - 1);
}

}  // namespace

namespace {

bool is_embedded(const std::string& path) {
  for (const EmbeddedFile& file : embedded_files()) {
    if (file.path == path) return true;
  }
  return false;
}

// Removes "dir/.." pairs and "./", so that one file has one path.
std::string normalised(const std::string& path) {
  std::vector<std::string> parts;
  std::istringstream in(path);
  for (std::string part; std::getline(in, part, '/');) {
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
  }
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : "/") + part;
  return out;
}

// The embedded file `spelling` names from `includer`, or "" when none does
// (a header of the toolkit, say).
std::string resolve(const std::string& includer, const std::string& spelling) {
  const std::string beside = normalised(includer.substr(0, includer.find_last_of('/') + 1) + spelling);
  if (is_embedded(beside)) return beside;
  const std::string from_root = normalised(spelling);
  return is_embedded(from_root) ? from_root : std::string();
}

}  // namespace

std::vector<TemplateInclude> template_includes(const std::string& main_file) {
  std::vector<std::string> order{main_file};
  std::set<std::string> seen{main_file};
  std::set<std::pair<std::string, std::string>> edges;
  std::vector<TemplateInclude> includes;
  for (std::size_t i = 0; i < order.size(); ++i) {
    std::istringstream text{std::string(embedded_file(order[i]))};
    for (std::string line; std::getline(text, line);) {
      const std::string spelling = quoted_include(line);
      if (spelling.empty()) continue;
      const std::string path = resolve(order[i], spelling);
      if (path.empty()) continue;
      if (edges.insert({spelling, path}).second) includes.push_back({spelling, path});
      if (seen.insert(path).second) order.push_back(path);
    }
  }
  return includes;
}

std::vector<std::string> included_templates(const std::string& main_file) {
  std::vector<std::string> order{main_file};
  for (const TemplateInclude& include : template_includes(main_file)) {
    if (std::find(order.begin(), order.end(), include.path) == order.end()) order.push_back(include.path);
  }
  return order;
}

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
// most kMaxBatch: each kernel's binary is its batch's whole cubin, held in
// memory once per kernel (32 x ~32 KB). Measured on 2 cores, the default
// space cold: 220 s unbatched, 222 s in batches of 8, 184 s in batches of 32.
constexpr std::size_t kMaxBatch = 32;

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

std::vector<int> nvrtc_supported_archs() {
  int count = 0;
  if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) {
    throw error("NVRTC cannot say which GPU architectures it compiles for");
  }
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) {
    throw error("NVRTC cannot say which GPU architectures it compiles for");
  }
  std::sort(archs.begin(), archs.end());
  return archs;
}

std::vector<CompileOutcome> compile_all(const std::vector<CompileRequest>& requests, const CompileCache& cache,
                                        const CompileOptions& options) {
  std::vector<CompileOutcome> outcomes(requests.size());
  std::mutex progress_mutex;
  std::size_t done = 0;
  auto finished = [&](std::size_t i) {
    std::lock_guard lock(progress_mutex);
    ++done;
    if (options.on_progress) options.on_progress({done, requests.size(), &outcomes[i]});
  };

  // The host compiler batches many kernels per translation unit, so it takes its
  // requests together; NVRTC compiles batches of one program's kernels, in parallel.
  std::vector<std::size_t> host, gpu;
  for (std::size_t i = 0; i < requests.size(); ++i) (requests[i].target == "host" ? host : gpu).push_back(i);

  if (!host.empty()) {
    std::vector<CompileRequest> batch;
    for (std::size_t i : host) batch.push_back(requests[i]);
    std::vector<CompileOutcome> compiled = compile_for_host(batch, cache, worker_count(options, batch.size()));
    for (std::size_t k = 0; k < host.size(); ++k) {
      outcomes[host[k]] = std::move(compiled[k]);
      finished(host[k]);
    }
  }

  // Cache hits first, in parallel (each reads and checks its entry); then
  // the misses, a batch per NVRTC program, so that every worker stays busy.
  std::vector<std::size_t> misses;
  std::mutex misses_mutex;
  run_in_parallel(gpu.size(), worker_count(options, gpu.size()), [&](std::size_t k) {
    if (std::optional<CompileOutcome> hit = cached_nvrtc_outcome(requests[gpu[k]], cache)) {
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

}  // namespace exactune
