// A planted slowdown (the gate's power test only): EXACTUNE_PLANTED_SLOWDOWN=F
// compiles a variant that takes about 1 + F times as long, so that a GPU run
// can measure how often the gate catches a slowdown of a known size
// (`exactune sweep --plant-slowdown F`, ci/gpu.sh gate-power).
// A family's variant kernel declares a PlantedSlowdown first. Thread 0 counts
// its CTA's SM cycles from there to the kernel's return (the destructor runs on
// every return path), then holds the CTA resident F times as long again: each
// CTA, and so each wave and the kernel, grows by about F whatever the grid.
// Without the macro the guard is empty and the kernel's code is what it was.
#pragma once

namespace exactune_kernels {

#ifdef EXACTUNE_PLANTED_SLOWDOWN
class PlantedSlowdown {
 public:
  __device__ PlantedSlowdown() : start_(threadIdx.x == 0 ? clock64() : 0) {}
  __device__ ~PlantedSlowdown() {
    if (threadIdx.x != 0) return;
    const long long end = clock64();
    const long long until =
        end + static_cast<long long>(static_cast<double>(end - start_) * (EXACTUNE_PLANTED_SLOWDOWN));
    // clock64 is volatile to the compiler: the loop is not removed.
    while (clock64() < until) {
    }
  }

 private:
  long long start_;
};
#else
class PlantedSlowdown {
 public:
  __device__ PlantedSlowdown() {}
};
#endif

}  // namespace exactune_kernels
