// NVRTC, opened at run time rather than linked, so that a program that serves
// kernels (the runtime, the Python wheel) needs no CUDA toolkit: NVRTC comes
// from wherever one is found, the `nvidia-cuda-nvrtc` wheel included. Tried in
// order:
//   1. $EXACTUNE_NVRTC_LIBRARY, a path to libnvrtc.so (the Python package sets
//      it to the wheel's library when it finds one and it is unset); set but
//      not loadable is an error naming it, never a silent fallback;
//   2. libnvrtc.so.<major of the headers> on the loader's path;
//   3. the toolkit's: $CUDA_HOME/lib64, then /usr/local/cuda/lib64.
// NVRTC finds its builtins library (libnvrtc-builtins.so) beside itself.
// The members are named like the functions: nvrtc().nvrtcCompileProgram(...).
#pragma once
#include <nvrtc.h>

#include <string>

namespace exactune {

// clang-format off
#define EXACTUNE_NVRTC_ENTRY_POINTS(X)                                                                     \
  X(nvrtcGetErrorString) X(nvrtcVersion) X(nvrtcGetNumSupportedArchs) X(nvrtcGetSupportedArchs)            \
  X(nvrtcCreateProgram) X(nvrtcDestroyProgram) X(nvrtcAddNameExpression) X(nvrtcCompileProgram)            \
  X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) X(nvrtcGetLoweredName) X(nvrtcGetCUBINSize)              \
  X(nvrtcGetCUBIN)
// clang-format on

struct NvrtcLibrary {
#define EXACTUNE_DECLARE_NVRTC_ENTRY_POINT(name) decltype(&::name) name = nullptr;
  EXACTUNE_NVRTC_ENTRY_POINTS(EXACTUNE_DECLARE_NVRTC_ENTRY_POINT)
#undef EXACTUNE_DECLARE_NVRTC_ENTRY_POINT
  std::string path;  // the file it was loaded from, as dlopen was given it
};

// The loaded library, opened on first use. Throws exactune::error naming
// every place tried when none loads, or the symbol a library lacks.
const NvrtcLibrary& nvrtc();

}  // namespace exactune
