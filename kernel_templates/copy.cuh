// The roofline: a copy of the bytes a fused kernel must move (read x, write out),
// 16 bytes per thread per step, grid-stride. No fused kernel can beat it.
// copy_regions copies up to three regions in one launch: the tensors a kernel
// streams beside the small operands it also reads (rows it broadcasts, which
// can be as many as the tensor's own), so that the roofline moves every byte
// and pays one launch.
#pragma once

namespace exactune_kernels {

__global__ void __launch_bounds__(256)
    copy_bytes(const uint4* __restrict__ src, uint4* __restrict__ dst, long long packets) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < packets;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    dst[i] = src[i];
  }
}

__global__ void __launch_bounds__(256)
    copy_regions(const uint4* __restrict__ src0, uint4* __restrict__ dst0, long long packets0,
                 const uint4* __restrict__ src1, uint4* __restrict__ dst1, long long packets1,
                 const uint4* __restrict__ src2, uint4* __restrict__ dst2, long long packets2) {
  const long long packets = packets0 + packets1 + packets2;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < packets;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    if (i < packets0) {
      dst0[i] = src0[i];
    } else if (i < packets0 + packets1) {
      dst1[i - packets0] = src1[i - packets0];
    } else {
      dst2[i - packets0 - packets1] = src2[i - packets0 - packets1];
    }
  }
}

}  // namespace exactune_kernels
