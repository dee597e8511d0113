#include "backends/gpu/cuda_driver.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <array>
#include <cstdio>

#include <exactune/error.hpp>

namespace exactune {
namespace {

// Where the driver lives: the loader's search path first, then where the GPU
// machine keeps it (outside the loader's path).
constexpr std::array kLibcudaCandidates = {"libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1"};

// The last CUDA version whose cuCtxSynchronize took no argument (see the header).
constexpr int kCtxSynchronizeAbiVersion = 12000;

struct DriverState {
  CudaDriver driver;
  bool entry_points_resolved = false;  // describe() may use the error-name functions
  std::optional<std::string> why_not;  // nullopt: loaded, initialised, with a device
};

std::string describe(const DriverState& state, CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (state.entry_points_resolved) {
    // Both leave the pointer null for a code they do not know.
    state.driver.cuGetErrorName(result, &name);
    state.driver.cuGetErrorString(result, &text);
  }
  const std::string named = name ? std::string(name) : fmt::format("CUDA error {}", static_cast<int>(result));
  return text ? fmt::format("{} ({})", named, text) : named;
}

// dlopen's message for a missing file says "No such file"; anything else
// (a broken or foreign library) is worth showing as is.
void* open_libcuda(std::string& why_not) {
  std::string load_failure;
  for (const char* candidate : kLibcudaCandidates) {
    if (void* handle = ::dlopen(candidate, RTLD_NOW | RTLD_LOCAL)) return handle;
    const char* message = ::dlerror();
    const std::string text = message ? message : "";
    if (load_failure.empty() && text.find("No such file") == std::string::npos) load_failure = text;
  }
  why_not = load_failure.empty() ? "no CUDA driver (libcuda.so.1 not found)"
                                 : fmt::format("cannot load the CUDA driver: {}", load_failure);
  return nullptr;
}

template <class Pointer>
std::optional<std::string> resolve(decltype(&::cuGetProcAddress) get_proc_address, const char* symbol, int abi_version,
                                   Pointer& pointer) {
  void* function = nullptr;
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  const CUresult result = get_proc_address(symbol, &function, abi_version, CU_GET_PROC_ADDRESS_DEFAULT, &status);
  if (result == CUDA_SUCCESS && status == CU_GET_PROC_ADDRESS_SUCCESS && function) {
    pointer = reinterpret_cast<Pointer>(function);
    return std::nullopt;
  }
  const char* why =
      status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT ? "its version is too old for" : "it does not provide";
  return fmt::format("the CUDA driver is unusable: {} {} (CUDA {}.{} ABI; cuGetProcAddress returned {})", why, symbol,
                     abi_version / 1000, abi_version % 1000 / 10, static_cast<int>(result));
}

std::optional<std::string> resolve_entry_points(void* libcuda, CudaDriver& driver) {
  // cuGetProcAddress_v2 (CUDA 12.0+) is the one symbol taken from the library
  // directly; its status output tells a missing symbol from a too-old one.
  auto get_proc_address = reinterpret_cast<decltype(&::cuGetProcAddress)>(::dlsym(libcuda, "cuGetProcAddress_v2"));
  if (!get_proc_address) return "the CUDA driver is too old: it lacks cuGetProcAddress_v2 (need a CUDA 12 driver)";

  std::optional<std::string> failure;
#define EXACTUNE_RESOLVE_ENTRY_POINT(name) \
  if (!failure) failure = resolve(get_proc_address, #name, CUDA_VERSION, driver.name);
  EXACTUNE_CUDA_DRIVER_ENTRY_POINTS(EXACTUNE_RESOLVE_ENTRY_POINT)
#undef EXACTUNE_RESOLVE_ENTRY_POINT
  if (!failure)
    failure = resolve(get_proc_address, "cuCtxSynchronize", kCtxSynchronizeAbiVersion, driver.cuCtxSynchronize);
  return failure;
}

DriverState load_driver() {
  DriverState state;
  std::string why_not;
  void* const libcuda = open_libcuda(why_not);
  // Never dlclose'd: the driver stays loaded for the life of the process, as
  // unloading it while contexts or static destructors may still use it is unsafe.
  if (!libcuda) {
    state.why_not = why_not;
    return state;
  }
  if ((state.why_not = resolve_entry_points(libcuda, state.driver))) return state;
  state.entry_points_resolved = true;

  const CudaDriver& d = state.driver;
  if (const CUresult r = d.cuInit(0); r != CUDA_SUCCESS) {
    state.why_not = fmt::format("cuInit failed: {}", describe(state, r));
    return state;
  }
  if (const CUresult r = d.cuDriverGetVersion(&state.driver.driver_version); r != CUDA_SUCCESS) {
    state.why_not = fmt::format("cuDriverGetVersion failed: {}", describe(state, r));
    return state;
  }
  int devices = 0;
  if (const CUresult r = d.cuDeviceGetCount(&devices); r != CUDA_SUCCESS) {
    state.why_not = fmt::format("cuDeviceGetCount failed: {}", describe(state, r));
  } else if (devices == 0) {
    state.why_not = "no CUDA device visible (cuDeviceGetCount returned 0)";
  }
  return state;
}

// Loaded once, on first use, by whichever thread gets here first.
const DriverState& driver_state() {
  static const DriverState state = load_driver();
  return state;
}

}  // namespace

const CudaDriver& cuda_driver() {
  const DriverState& state = driver_state();
  if (state.why_not) throw error(fmt::format("no usable GPU: {}", *state.why_not));
  return state.driver;
}

std::optional<std::string> why_no_gpu() { return driver_state().why_not; }

std::string describe_cuda_result(CUresult result) { return describe(driver_state(), result); }

void throw_cuda_error(CUresult result, std::string_view what) {
  throw error(fmt::format("{} failed: {}", what, describe_cuda_result(result)));
}

void report_cleanup_failure(CUresult result, const char* what) noexcept {
  // At process exit the driver may already be shut down, and with it everything
  // there was to release: not worth a warning.
  if (result == CUDA_SUCCESS || result == CUDA_ERROR_DEINITIALIZED) return;
  try {
    fmt::print(stderr, "exactune: warning: {} failed: {}\n", what, describe_cuda_result(result));
  } catch (...) {
    // Nothing more can be done from a destructor.
  }
}

}  // namespace exactune
