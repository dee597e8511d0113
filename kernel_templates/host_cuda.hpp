// The CUDA surface that exactune's kernel templates use, for a host C++
// compiler: the same .cuh source compiles with g++/clang++ and runs on the CPU
// with the semantics it relies on, so that CI (no GPU) can check bit-exactness.
// This file holds what kernel code names: the keywords, the vector types,
// threadIdx and its kin, __syncthreads, __syncwarp, the shuffles, the atomics
// and the arithmetic intrinsics. What runs a launch (each block on an OS
// thread, its CUDA threads as fibers that switch at shuffles and barriers, the
// schedule orders of EXACTUNE_HOST_SCHEDULE, the launcher the host compiler's
// translation unit exports) is kernel_templates/host_cuda_simulator.hpp, which
// this file includes once the types it is built on are declared.
//
// Arithmetic. The __f*_rn intrinsics are the plain IEEE operations (one
// rounding each, nearest even), __fmaf_rn is std::fma. Host code must be built
// with -ffp-contract=off and without fast-math (enforced below where a macro
// shows it). rsqrtf has no host equivalent of the GPU's rsqrt.approx.f32: it
// is 1/sqrt here (see exactune_host::rsqrtf_recipe), used by references and
// variants alike, so they agree with each other but not always with a GPU.
// EXACTUNE_HOST_RSQRTF_TABLE names a file of the GPU's own values instead:
// little-endian pairs of float32 bits (input, rsqrtf(input)) measured on a GPU.
// rsqrtf then returns the GPU's bits, and an input missing from the table fails
// the launch: the torch golden test gives the GPU's values around each row's variance.
//
// Atomics: atomicAdd and atomicMin on unsigned long long (the verifier's
// compare kernel), real atomic read-modify-writes since blocks run on several
// OS threads at once.
//
// Dynamic shared memory (extern __shared__) has no host form: a template that
// takes it on the GPU declares a __shared__ array of its compile-time size
// under `#if !defined(__CUDACC__)`, and the CPU backend ignores the launch's
// dynamic byte count.
//
// Not simulated: partial-warp masks,
// other atomics, warp votes, inter-block synchronisation, __launch_bounds__ checks.
#pragma once

#if defined(__CUDACC__) || defined(__CUDA_ARCH__)
#error "host_cuda.hpp makes CUDA sources compile with a host compiler; NVRTC/nvcc do not need it"
#endif
#if defined(__FAST_MATH__)
#error "kernel templates must be compiled without fast-math on the host (-fno-fast-math): it changes the bits"
#endif
#if defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__
#error "kernel templates need NaN and infinity semantics on the host (no -ffinite-math-only)"
#endif
#if !defined(__FLT_EVAL_METHOD__) || __FLT_EVAL_METHOD__ != 0
#error "kernel templates need float arithmetic evaluated in float (SSE, not x87 excess precision)"
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

// CUDA's `#pragma unroll` means nothing to a host compiler. (Clang honours
// this; GCC still warns under -Wall, which kernel builds do not use.)
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

// ---------------------------------------------------------------------------
// Keywords
// ---------------------------------------------------------------------------
#define __global__ inline  // kernels live in headers: inline keeps them ODR-safe
#define __device__
#define __host__
#define __constant__  // __device__ and __constant__ variables: plain globals of the shared object
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static thread_local  // one per block: an OS thread runs its blocks one at a time
// __restrict__ is understood by g++ and clang++ as it is.

// ---------------------------------------------------------------------------
// Vector types, with CUDA's alignment (reinterpret_cast loads rely on it)
// ---------------------------------------------------------------------------
struct alignas(8) uint2 {
  unsigned int x, y;
};
struct uint3 {
  unsigned int x, y, z;
};
struct alignas(16) uint4 {
  unsigned int x, y, z, w;
};
struct dim3 {
  unsigned int x = 1, y = 1, z = 1;
};
inline uint2 make_uint2(unsigned int x, unsigned int y) { return uint2{x, y}; }
inline uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { return uint4{x, y, z, w}; }

constexpr int warpSize = 32;

// ---------------------------------------------------------------------------
// Arithmetic intrinsics: one IEEE operation each, rounded to nearest even
// ---------------------------------------------------------------------------
inline unsigned int __float_as_uint(float f) {
  unsigned int u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float __uint_as_float(unsigned int u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline int __float_as_int(float f) { return static_cast<int>(__float_as_uint(f)); }
inline float __int_as_float(int i) { return __uint_as_float(static_cast<unsigned int>(i)); }

inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }

// What runs the kernel: fibers, the per-block scheduler, the grid and the
// launcher. The built-in variables, barriers, shuffles and rsqrtf below call into it.
#define EXACTUNE_HOST_CUDA_SURFACE 1
#include "kernel_templates/host_cuda_simulator.hpp"

// ---------------------------------------------------------------------------
// CUDA's built-in variables and synchronisation, per simulated thread
// ---------------------------------------------------------------------------
#define threadIdx (static_cast<const uint3&>(::exactune_host::detail::active_runner->current->thread_index))
#define blockIdx (static_cast<const uint3&>(::exactune_host::detail::active_runner->block_idx))
#define blockDim (static_cast<const dim3&>(::exactune_host::detail::active_runner->block_dim))
#define gridDim (static_cast<const dim3&>(::exactune_host::detail::active_runner->grid_dim))

inline void __syncthreads() { ::exactune_host::detail::active_runner->block_sync(); }

inline void __syncwarp(unsigned mask = 0xffffffffu) {
  ::exactune_host::detail::check_warp_mask(mask, "__syncwarp");
  ::exactune_host::detail::exchange_word(0, 0);
}

template <class T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize) {
  return ::exactune_host::detail::shuffle(mask, var, ::exactune_host::detail::shuffle_mode::idx,
                                          static_cast<unsigned>(src_lane), width, "__shfl_sync");
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return ::exactune_host::detail::shuffle(mask, var, ::exactune_host::detail::shuffle_mode::up, delta, width,
                                          "__shfl_up_sync");
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return ::exactune_host::detail::shuffle(mask, var, ::exactune_host::detail::shuffle_mode::down, delta, width,
                                          "__shfl_down_sync");
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize) {
  return ::exactune_host::detail::shuffle(mask, var, ::exactune_host::detail::shuffle_mode::bfly,
                                          static_cast<unsigned>(lane_mask), width, "__shfl_xor_sync");
}

// ---------------------------------------------------------------------------
// Atomics, as CUDA defines them: they return the old value and order nothing
// (relaxed). Blocks of a grid run on several OS threads, so each is one atomic
// instruction or compare-and-swap loop; a fiber never switches inside one.
// ---------------------------------------------------------------------------
inline unsigned long long atomicAdd(unsigned long long* address, unsigned long long value) {
  return __atomic_fetch_add(address, value, __ATOMIC_RELAXED);
}

inline unsigned long long atomicMin(unsigned long long* address, unsigned long long value) {
  unsigned long long old = __atomic_load_n(address, __ATOMIC_RELAXED);
  // A failed exchange reloads `old`; stop once it is no larger than `value`.
  while (value < old &&
         !__atomic_compare_exchange_n(address, &old, value, /*weak=*/true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}

// ---------------------------------------------------------------------------
// rsqrtf: the host recipe, or a GPU's values from EXACTUNE_HOST_RSQRTF_TABLE
// ---------------------------------------------------------------------------
namespace exactune_host {
// The GPU's rsqrtf is rsqrt.approx.f32, whose exact bits no host function
// reproduces. The host uses this one recipe everywhere, so a reference and a
// variant run on the CPU see the same rstd; reports must say it is approximated.
constexpr bool rsqrtf_is_approximate = true;
constexpr const char* rsqrtf_recipe = "1.0f / sqrtf(x), both correctly rounded (GPU: rsqrt.approx.f32)";
inline float host_rsqrtf(float x) { return 1.0f / std::sqrt(x); }
}  // namespace exactune_host

inline float rsqrtf(float x) {
  const char* path = std::getenv("EXACTUNE_HOST_RSQRTF_TABLE");
  if (path == nullptr || *path == '\0') return exactune_host::host_rsqrtf(x);
  const auto table = exactune_host::detail::load_rsqrtf_table(path);
  const std::uint32_t input = __float_as_uint(x);
  const auto found = std::lower_bound(table->pairs.begin(), table->pairs.end(), std::make_pair(input, 0u));
  if (table->problem.empty() && found != table->pairs.end() && found->first == input) {
    return __uint_as_float(found->second);
  }
  char what[512];
  if (!table->problem.empty()) {
    std::snprintf(what, sizeof what, "EXACTUNE_HOST_RSQRTF_TABLE=%s %s", path, table->problem.c_str());
  } else {
    std::snprintf(what, sizeof what,
                  "rsqrtf(%.9g, bits 0x%08x): not in EXACTUNE_HOST_RSQRTF_TABLE=%s (%zu pairs), so the GPU's value "
                  "is unknown here",
                  static_cast<double>(x), input, path, table->pairs.size());
  }
  if (::exactune_host::detail::active_runner == nullptr) {  // host code, outside any launch
    std::fprintf(stderr, "%s\n", what);
    std::abort();
  }
  ::exactune_host::detail::active_runner->fail(what);
}
