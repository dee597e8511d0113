// Planted crashes (tests of the harness only): EXACTUNE_PLANTED_CRASH compiles a
// variant that never finishes normally, to prove that supervision turns it into
// one failed or hung record and loses nothing else (`--plant-crash`):
//   1 trap:          the kernel traps (on a GPU a sticky launch failure; on the
//                    CPU SIGILL)
//   2 out-of-bounds: every thread writes far outside any buffer (an illegal
//                    address on a GPU, SIGSEGV on the CPU)
//   3 spin:          the kernel never returns (it must be killed at its deadline)
// A family's variant kernel calls planted_crash() first; at 0 it is nothing.
#pragma once

#ifndef EXACTUNE_PLANTED_CRASH
#define EXACTUNE_PLANTED_CRASH 0
#endif

namespace exactune_kernels {

__device__ __forceinline__ void planted_crash() {
#if EXACTUNE_PLANTED_CRASH == 1
#ifdef __CUDA_ARCH__
  __trap();
#else
  __builtin_trap();
#endif
#elif EXACTUNE_PLANTED_CRASH == 2
  // An address no allocation gets: the first page is never mapped.
  *reinterpret_cast<volatile unsigned int*>(static_cast<unsigned long long>(16)) = 1u;
#elif EXACTUNE_PLANTED_CRASH == 3
  // An empty loop may be assumed to end, and a volatile local can live in a
  // register: NVRTC deleted both. Sleeping is an effect no compiler removes.
  for (;;) {
#ifdef __CUDA_ARCH__
    __nanosleep(1000);
#else
    __asm__ __volatile__("" ::: "memory");
#endif
  }
#endif
}

}  // namespace exactune_kernels
