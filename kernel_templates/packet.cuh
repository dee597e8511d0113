// Vector loads and stores of bf16 data: VecLanes aten vectors of 4 bf16 (8 or 16
// bytes) moved as one uint2 or uint4, with word access by compile-time index
// (a run-time index would move the packet to local memory); and asynchronous
// copies of such words from global to shared memory.
#pragma once
#include "kernel_templates/arith.cuh"

namespace exactune_kernels {

// Words 32-bit words of bf16 pairs (1, 2 or 4) held as one scalar, uint2 or
// uint4, so that one load or store moves them all.
template <int Words>
struct bf16_words;
template <>
struct bf16_words<1> {
  unsigned int v;
  __device__ __forceinline__ unsigned int word(int) const { return v; }
  __device__ __forceinline__ void set_word(int, unsigned int w) { v = w; }
};
template <>
struct bf16_words<2> {
  uint2 v;
  __device__ __forceinline__ unsigned int word(int i) const { return i == 0 ? v.x : v.y; }
  __device__ __forceinline__ void set_word(int i, unsigned int w) {
    if (i == 0)
      v.x = w;
    else
      v.y = w;
  }
};
template <>
struct bf16_words<4> {
  uint4 v;
  __device__ __forceinline__ unsigned int word(int i) const { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }
  __device__ __forceinline__ void set_word(int i, unsigned int w) {
    if (i == 0)
      v.x = w;
    else if (i == 1)
      v.y = w;
    else if (i == 2)
      v.z = w;
    else
      v.w = w;
  }
};

// VecLanes aten vectors of 4 bf16: two words each.
template <int VecLanes>
using packet = bf16_words<2 * VecLanes>;

// Words words from p, aligned to their 4 * Words bytes, in one load.
template <int Words>
__device__ __forceinline__ bf16_words<Words> load_words(const bf16_bits* p) {
  bf16_words<Words> r;
  r.v = *reinterpret_cast<const decltype(r.v)*>(p);
  return r;
}

template <int VecLanes>
__device__ __forceinline__ packet<VecLanes> load_packet(const bf16_bits* p) {
  return load_words<2 * VecLanes>(p);
}

template <int VecLanes>
__device__ __forceinline__ void store_packet(bf16_bits* p, const packet<VecLanes>& r) {
  *reinterpret_cast<decltype(r.v)*>(p) = r.v;
}

// Asynchronous copies (sm_80's cp.async): Words words from global to shared
// memory without passing through registers, so that a CTA can stage its next
// tile while it reduces the current one. A thread waits for its own copies
// only: it reads back what it copied itself, and needs no barrier. On the host
// the copy happens at once.
template <int Words>
__device__ __forceinline__ void copy_words_async(bf16_words<Words>* to_shared, const bf16_bits* from_global) {
#if defined(__CUDA_ARCH__)
  const unsigned int address = static_cast<unsigned int>(__cvta_generic_to_shared(to_shared));
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(address), "l"(from_global), "n"(4 * Words) : "memory");
#else
  *to_shared = load_words<Words>(from_global);
#endif
}

// Waits until every copy_words_async of this thread has landed.
__device__ __forceinline__ void wait_async_copies() {
#if defined(__CUDA_ARCH__)
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

}  // namespace exactune_kernels
