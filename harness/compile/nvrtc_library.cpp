#include "compile/nvrtc_library.hpp"

#include <cuda.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <vector>

#include <exactune/error.hpp>

namespace exactune {
namespace {

// The soname of the NVRTC whose header this was compiled against (13 for CUDA 13.x).
std::string soname() { return fmt::format("libnvrtc.so.{}", CUDA_VERSION / 1000); }

std::vector<std::string> candidates() {
  std::vector<std::string> places = {soname()};
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) {
    places.push_back(fmt::format("{}/lib64/{}", home, soname()));
  }
  places.push_back("/usr/local/cuda/lib64/" + soname());
  return places;
}

NvrtcLibrary load() {
  void* handle = nullptr;
  std::string path;
  if (const char* chosen = std::getenv("EXACTUNE_NVRTC_LIBRARY"); chosen && *chosen) {
    path = chosen;
    handle = ::dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = ::dlerror();
      throw error(fmt::format("EXACTUNE_NVRTC_LIBRARY={} cannot be loaded: {}", chosen, why ? why : "unknown"));
    }
  } else {
    std::vector<std::string> failures;
    for (const std::string& candidate : candidates()) {
      if ((handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL))) {
        path = candidate;
        break;
      }
      const char* why = ::dlerror();
      failures.push_back(why ? why : candidate);
    }
    if (!handle) {
      throw error(
          fmt::format("NVRTC not found (install the CUDA toolkit, or pip install nvidia-cuda-nvrtc and set "
                      "EXACTUNE_NVRTC_LIBRARY to its {}): {}",
                      soname(), fmt::join(failures, "; ")));
    }
  }
  NvrtcLibrary library;
  library.path = path;
#define EXACTUNE_RESOLVE_NVRTC_ENTRY_POINT(name)                              \
  library.name = reinterpret_cast<decltype(&::name)>(::dlsym(handle, #name)); \
  if (!library.name)                                                          \
    throw error(fmt::format("{} has no {}: not an NVRTC of CUDA {}", path, #name, CUDA_VERSION / 1000));
  EXACTUNE_NVRTC_ENTRY_POINTS(EXACTUNE_RESOLVE_NVRTC_ENTRY_POINT)
#undef EXACTUNE_RESOLVE_NVRTC_ENTRY_POINT
  return library;  // the handle stays open for the process: its functions are in use
}

}  // namespace

const NvrtcLibrary& nvrtc() {
  // Loaded once, by the first caller (a static's initialisation is thread-safe);
  // a load that throws leaves it uninitialised, so the next call tries again.
  static const NvrtcLibrary library = load();
  return library;
}

}  // namespace exactune
