// The CUDA driver API, opened at run time. exactune never links libcuda (nor
// cudart), so the same binary starts on machines without a GPU or a driver and
// still compiles, checks and reports; only running kernels needs a driver.
//
// Entry points are resolved through cuGetProcAddress for the CUDA version of the
// headers we compiled against, so each pointer has exactly the ABI that its
// type (taken from <cuda.h>) declares, whatever newer driver is installed.
#pragma once
#include <cuda.h>

#include <optional>
#include <string>
#include <string_view>

namespace exactune {

// Resolved by their base name at CUDA_VERSION. The members are named like the
// functions, so calls read as in NVIDIA's documentation:
//   check(cuda_driver().cuMemAlloc(&address, bytes), "cuMemAlloc");
// (<cuda.h> #defines some names to their _v2 ABI, e.g. cuMemAlloc to
// cuMemAlloc_v2; members and calls go through the same macros, so they agree.)
// cuGraphInstantiateWithFlags is what <cuda.h> calls cuGraphInstantiate since
// CUDA 12 (graph, flags); resolving it by that name can never yield the older
// five-argument ABI. `driver.cuGraphInstantiate(...)` reaches it through the macro.
// A list, four entry points a row.
// clang-format off
#define EXACTUNE_CUDA_DRIVER_ENTRY_POINTS(X)                                                                   \
  X(cuGetErrorName) X(cuGetErrorString) X(cuInit) X(cuDriverGetVersion)                                        \
  X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute)                                \
  X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent)              \
  X(cuCtxGetCurrent) X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction)                              \
  X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuLaunchKernel) X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
  X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH)                                                   \
  X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemsetD8) X(cuMemsetD8Async)                                   \
  X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamIsCapturing)                           \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize)                                    \
  X(cuEventElapsedTime) X(cuStreamBeginCapture) X(cuStreamEndCapture) X(cuGraphInstantiateWithFlags)           \
  X(cuGraphLaunch) X(cuGraphDestroy) X(cuGraphExecDestroy)
// clang-format on

struct CudaDriver {
#define EXACTUNE_DECLARE_ENTRY_POINT(name) decltype(&::name) name = nullptr;
  EXACTUNE_CUDA_DRIVER_ENTRY_POINTS(EXACTUNE_DECLARE_ENTRY_POINT)
#undef EXACTUNE_DECLARE_ENTRY_POINT

  // CUDA 13 gave cuCtxSynchronize a context argument under the same base name,
  // while <cuda.h> still declares the old one; this pointer is resolved at the
  // CUDA 12 ABI so that it matches its declared type.
  decltype(&::cuCtxSynchronize) cuCtxSynchronize = nullptr;

  int driver_version = 0;  // cuDriverGetVersion, e.g. 13000 for CUDA 13.0
};

// The loaded, initialised driver (cuInit done). Throws exactune::error with
// why_no_gpu()'s reason when there is none.
const CudaDriver& cuda_driver();

// nullopt when a GPU can be used; otherwise one line saying why not, e.g.
// "no CUDA driver (libcuda.so.1 not found)" or "cuInit failed: CUDA_ERROR_NO_DEVICE (...)".
// Never throws; loads and initialises the driver on first use.
std::optional<std::string> why_no_gpu();

// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)"; "CUDA error 2" when no driver could be loaded.
std::string describe_cuda_result(CUresult result);

[[noreturn]] void throw_cuda_error(CUresult result, std::string_view what);

// Throws exactune::error "<what> failed: <error name> (<error string>)" unless
// the call succeeded. `what` names the call and, where it helps, its subject:
// build a richer one only on failure, with throw_cuda_error.
inline void check(CUresult result, const char* what) {
  if (result != CUDA_SUCCESS) throw_cuda_error(result, what);
}

// For destructors, which must not throw: a failed cleanup call is reported on
// stderr rather than lost (it is often the first sign of an earlier fault).
void report_cleanup_failure(CUresult result, const char* what) noexcept;

}  // namespace exactune
