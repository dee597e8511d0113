// Test-only kernels that pin down the CUDA semantics kernel_templates/host_cuda.hpp
// offers and its simulator (host_cuda_simulator.hpp) carries out on the CPU
// (tests/compile/host/test_host_exec.cpp). Each is as small as the property it
// proves.
#pragma once

namespace host_kernel_tests {

// What every shuffle flavour returns to each thread of the block. Thread t
// offers 1000 + t; row k of `out` (blockDim.x entries) is flavour k:
// down, up, xor, idx as int, then down as float, xor as unsigned and up as
// double (a 64-bit type: two exchanges).
__global__ void shuffle_probe(int* out, unsigned delta, int width) {
  const int t = threadIdx.x;
  const int n = blockDim.x;
  const int offered = 1000 + t;
  out[0 * n + t] = __shfl_down_sync(0xffffffffu, offered, delta, width);
  out[1 * n + t] = __shfl_up_sync(0xffffffffu, offered, delta, width);
  out[2 * n + t] = __shfl_xor_sync(0xffffffffu, offered, static_cast<int>(delta), width);
  out[3 * n + t] = __shfl_sync(0xffffffffu, offered, static_cast<int>(delta), width);
  out[4 * n + t] = static_cast<int>(__shfl_down_sync(0xffffffffu, offered + 0.25f, delta, width));
  out[5 * n + t] =
      static_cast<int>(__shfl_xor_sync(0xffffffffu, static_cast<unsigned>(offered), static_cast<int>(delta), width));
  out[6 * n + t] = static_cast<int>(__shfl_up_sync(0xffffffffu, offered + 0.5, delta, width));
}

// Values travel around the block through shared memory, one neighbour per
// round. Without a barrier between writing and reading, some thread would read
// a slot its neighbour has not written yet (or has already overwritten).
__global__ void rotate_through_shared(int* out, int rounds) {
  __shared__ int slots[1024];
  const int n = blockDim.x * blockDim.y * blockDim.z;
  const int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int value = t + 100000 * static_cast<int>(blockIdx.x);
  for (int round = 0; round < rounds; ++round) {
    slots[t] = value;
    __syncthreads();
    value = slots[(t + 1) % n] + 1;
    __syncthreads();
  }
  out[blockIdx.x * n + t] = value;
}

// Each thread records its indices and the launch's dimensions: 12 values.
__global__ void record_indices(unsigned* out) {
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned* record = out + 12 * (block * blockDim.x * blockDim.y * blockDim.z + thread);
  const unsigned values[12] = {threadIdx.x, threadIdx.y, threadIdx.z, blockIdx.x, blockIdx.y, blockIdx.z,
                               blockDim.x,  blockDim.y,  blockDim.z,  gridDim.x,  gridDim.y,  gridDim.z};
  for (int i = 0; i < 12; ++i) record[i] = values[i];
}

// Threads that leave before a barrier the others wait at: a hang on a GPU.
__global__ void exit_before_barrier(int* out) {
  if (threadIdx.x < 16) return;
  __syncthreads();
  out[threadIdx.x] = 1;
}

// A frame larger than a fiber's whole stack (64 KiB), in a function of its own
// so that only the thread that calls it moves its stack pointer that far.
__attribute__((noinline)) int deep_frame() {
  volatile char frame[72 * 1024];
  for (int i = 0; i < static_cast<int>(sizeof frame); ++i) frame[i] = static_cast<char>(i);
  return frame[100];
}

// Thread 1 runs past its stack into the one below, thread 0's, which has
// already finished (a host-only kernel: no GPU runs it).
__global__ void deep_stack(int* out) {
  if (threadIdx.x == 1) out[0] = deep_frame();
}

// Half a warp shuffles while the other half has left.
__global__ void half_warp_shuffle(int* out) {
  if (threadIdx.x % 32 < 16) out[threadIdx.x] = __shfl_down_sync(0xffffffffu, 1, 1);
}

// A shuffle with a partial mask, which the host does not simulate.
__global__ void partial_mask_shuffle(int* out) { out[threadIdx.x] = __shfl_down_sync(0x0000ffffu, 1, 1); }

// One sum per block: a warp butterfly, then the warps' totals through shared memory.
__global__ void block_sums(const int* in, long long* out) {
  __shared__ int warp_totals[32];
  const unsigned t = threadIdx.x;
  int value = in[blockIdx.x * blockDim.x + t];
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  if (t % 32 == 0) warp_totals[t / 32] = value;
  __syncthreads();
  if (t == 0) {
    long long total = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) total += warp_totals[w];
    out[blockIdx.x] = total;
  }
}

// `shuffles` dependent shuffles per thread: what the scheduler costs.
__global__ void shuffle_chain(float* out, int shuffles) {
  float value = static_cast<float>(threadIdx.x);
  for (int i = 0; i < shuffles; ++i) value += __shfl_down_sync(0xffffffffu, value, 1 + i % 16);
  out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

}  // namespace host_kernel_tests
