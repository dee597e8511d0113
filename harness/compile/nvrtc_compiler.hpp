// Compiles requests for a GPU architecture with NVRTC, straight to a cubin,
// through the on-disk cache. Works without a GPU or driver.
//
// Requests that share a template, target and defines compile as one NVRTC
// program with one name expression each: the front end, the builtin headers
// and the program's setup are paid once per batch instead of once per kernel.
// The batch's cubin holds every kernel of the batch, and a kernel's SASS in it
// is the SASS it gets compiled alone (ptxas compiles each entry on its own).
// It is stored once, named by its content hash; each kernel keeps its own
// cache entry (its key, entry name, resources, log and the cubin's name), so a
// later request for one kernel alone is a cache hit and a new one compiles
// only itself. The batch's kernels share one Binary (compiled_kernel.hpp),
// whether compiled or found in the cache: a lookup reads and checks each
// batch's cubin once (CachedBinaries), not once per kernel.
#pragma once
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <exactune/compile_request.hpp>

#include "compile/compile_cache.hpp"

namespace exactune {

std::string nvrtc_version();  // e.g. "13.0"

// The GPU architectures this NVRTC compiles for, as numbers (sm_90 is 90), ascending.
std::vector<int> nvrtc_supported_archs();

// What NVRTC builds from `request`, as a content hash of the template sources
// its program includes, its instantiation, its options and its target; unlike
// the cache's key, without the compiler's version, so that it is known where
// no NVRTC is (compile/kernel_export.hpp keys the exported kernels by it).
std::string nvrtc_build_key(const CompileRequest& request);

// Whether two requests can be name expressions of one NVRTC program.
bool same_nvrtc_program(const CompileRequest& a, const CompileRequest& b);

// The cubins of the cache that one lookup (a compile_all) has read, by cache
// name: each is read and checked once, on first asking, and then shared by
// every kernel of it. Safe to ask from many threads.
class CachedBinaries {
 public:
  explicit CachedBinaries(const CompileCache& cache);
  // The cubin named `cubin_id`, null when the cache has no whole one.
  std::shared_ptr<const Binary> get(const std::string& cubin_id);

 private:
  const CompileCache& cache_;
  std::mutex mutex_;
  std::map<std::string, std::shared_future<std::shared_ptr<const Binary>>> binaries_;
};

// The request's kernel from the cache, or nullopt when it has no whole entry.
// Its binary comes through `binaries`, shared with the other kernels of its cubin.
std::optional<CompileOutcome> cached_nvrtc_outcome(const CompileRequest& request, const CompileCache& cache,
                                                   CachedBinaries& binaries);

// Compiles `batch` (requests of one program, see same_nvrtc_program) and
// caches each kernel; one outcome per request, in order. Never throws for a
// compile error: when the program fails, each request is compiled alone, so
// a broken kernel fails with its own log and the others of its batch compile.
std::vector<CompileOutcome> compile_nvrtc_batch(const std::vector<CompileRequest>& batch, const CompileCache& cache);

}  // namespace exactune
