// The verifier's bit-for-bit comparison, run where the outputs lie: it compares
// n 16-bit values of a variant's output with the reference's and leaves on the
// device how many differ and the lowest index that differs, so that per run
// only this summary (16 bytes) crosses to the host. No tolerance and no
// floating point: +0 and -0, or two NaNs of different bits, differ.
//
// Each thread walks a grid-stride loop (any grid covers any n) and keeps its
// count and its first mismatch; a block combines its threads' figures in shared
// memory and, when it saw a mismatch, adds its count and lowers the summary's
// first index with one atomicAdd and one atomicMin. The host execution layer
// (host_cuda.hpp) runs the same source, with both atomics.
//
// An output that lies in several pieces (two tensors with a gap between them)
// is compared one launch per piece into the same summary: `index_base` is the
// index of the piece's first element in the whole output.
#pragma once

namespace exactune_kernels {

// Reset before the first launch: mismatches to 0, first_index to all bits set.
struct compare_summary {
  unsigned long long mismatches;
  unsigned long long first_index;  // all bits set while no element differs
};

// The most threads a block may have (the shared arrays' size). Any block size
// up to it works; the verifier launches blocks of exactly this many.
constexpr unsigned compare_block_threads = 256;

__global__ void __launch_bounds__(compare_block_threads)
    compare_bits(const unsigned short* __restrict__ expected, const unsigned short* __restrict__ actual, long long n,
                 long long index_base, compare_summary* summary) {
  unsigned long long mismatches = 0;
  unsigned long long first_index = ~0ull;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    if (expected[i] != actual[i]) {
      // A thread's indexes only grow, so its first mismatch is its lowest.
      if (mismatches == 0) first_index = static_cast<unsigned long long>(index_base + i);
      ++mismatches;
    }
  }

  __shared__ unsigned long long block_mismatches[compare_block_threads];
  __shared__ unsigned long long block_first_index[compare_block_threads];
  const unsigned t = threadIdx.x;
  block_mismatches[t] = mismatches;
  block_first_index[t] = first_index;
  __syncthreads();
  // A tree over the block's threads. The bound on t + half lets a block of
  // fewer threads than compare_block_threads (not a power of two, even) skip
  // the slots no thread wrote.
  for (unsigned half = compare_block_threads / 2; half > 0; half /= 2) {
    if (t < half && t + half < blockDim.x) {
      block_mismatches[t] += block_mismatches[t + half];
      const unsigned long long other = block_first_index[t + half];
      if (other < block_first_index[t]) block_first_index[t] = other;
    }
    __syncthreads();
  }
  if (t == 0 && block_mismatches[0] != 0) {
    atomicAdd(&summary->mismatches, block_mismatches[0]);
    atomicMin(&summary->first_index, block_first_index[0]);
  }
}

}  // namespace exactune_kernels
