// A template that refuses some of its arguments at compile time, as a family's
// kernel template refuses a combination its space excludes: the host compiler
// must pin such an error to its request and still compile the others
// (tests/compile/host/test_host_exec.cpp).
#pragma once

namespace host_kernel_tests {

template <int Lanes>
__global__ void lane_slice(int* out) {
  static_assert(Lanes <= 32, "a slice may not span more than a warp's 32 lanes");
  out[threadIdx.x] = Lanes;
}

}  // namespace host_kernel_tests
