// One GPU for the life of a process, with each family's support kernels and
// the variants loaded so far: what a family's C ABI (families/<name>/capi/)
// runs its workloads on. Calls are serialised by capi_guarded, which also turns
// an exception into the C ABI's status and last error.
#pragma once
#include <functional>
#include <string>

#include <exactune/backend.hpp>
#include <exactune/family.hpp>
#include <exactune/workload.hpp>

namespace exactune {

class GpuSession {
 public:
  static GpuSession& instance();  // opens GPU 0 on first use

  Backend& backend();
  std::string describe_gpu();
  const SupportKernels& support(const KernelFamily& family);
  // The valid variant `name` at `size`, loaded; callers go through every variant
  // of a size, so the first call compiles them all at once, in parallel.
  const LoadedKernel& variant(const KernelFamily& family, const std::string& name, int size, Variant* found);

  GpuSession(const GpuSession&) = delete;
  GpuSession& operator=(const GpuSession&) = delete;
  ~GpuSession();

 private:
  GpuSession();
  struct State;
  State* state_;
};

// Runs `body` under the session's lock: an exactune_status (exactune/runtime.h),
// EXACTUNE_OK when it returns, else by what it throws (capi/capi_arguments.hpp
// says which), with the message kept for capi_last_error().
int capi_guarded(const std::function<void()>& body);
const char* capi_last_error();
// Copies `text` with its terminating zero into `buffer`, or throws when it does not fit.
void capi_copy_text(const std::string& text, char* buffer, std::size_t capacity, const char* function);

}  // namespace exactune
