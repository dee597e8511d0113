// The fused kernel of the gated residual + LayerNorm + modulate family:
//   r = x + gate * h (bf16, eager's two roundings), out = LN(r) * (1 + scale) + shift,
// writing both r and out. It is layer_norm_modulate's fused template, unchanged,
// over another row source: a row's values are its residual r, computed as the
// row is loaded in pass 1 and written out there, once. Every axis keeps its
// meaning; for this source:
//   pass2_reload     pass 2 reads r back from the residual output (one read,
//                    where x and h would be two); the thread that reads an
//                    element in pass 2 wrote it in pass 1, before the
//                    reduction's barrier
//   pass2_registers  r stays in registers, as x does in that family
//   elementwise      the residual's two steps as float32 steps each rounded to
//                    bf16 (f32) or as packed bf16x2 steps (bf16x2), same bits
//   grid_persistent  the next row group's r is computed, and written, as it is
//                    prefetched
// A CTA's surplus rows compute the last row again and store neither output.
// residual may not alias x or h: the reference writes r to a buffer of its own.
//
// EXACTUNE_PLANTED_FAULT == 11 (tests only): pass 2 of a reload variant reads
// x instead of r, which only reload variants can show.
#pragma once
#include "families/gated_residual_layer_norm_modulate/kernels/gated_residual.cuh"
#include "families/layer_norm_modulate/kernels/fused_layer_norm_modulate.cuh"

namespace exactune_kernels {

// The row source (see row_in_memory in fused_layer_norm_modulate.cuh): x and h
// are (rows, Hidden) bf16, gate a row per batch element of the adaLN
// embedding, as scale and shift are.
template <int Hidden, int Elementwise>
struct gated_residual_rows {
  const bf16_bits* __restrict__ x;
  const bf16_bits* __restrict__ h;
  const bf16_bits* __restrict__ gate;
  bf16_bits* __restrict__ residual;
  int tokens_per_batch;
  long long modulation_stride;

  template <int VecLanes>
  __device__ __forceinline__ packet<VecLanes> load(long long row, int column, bool stored) const {
    const long long at = row * Hidden + column;
    const packet<VecLanes> xs = load_packet<VecLanes>(x + at);
    const packet<VecLanes> hs = load_packet<VecLanes>(h + at);
    const packet<VecLanes> gs =
        load_packet<VecLanes>(modulation_row(gate, row, tokens_per_batch, modulation_stride) + column);
    packet<VecLanes> r;
#pragma unroll
    for (int w = 0; w < 2 * VecLanes; ++w) {
      r.set_word(w, Elementwise == elementwise_bf16x2 ? gated_residual_bf16x2(xs.word(w), gs.word(w), hs.word(w))
                                                      : gated_residual_float32(xs.word(w), gs.word(w), hs.word(w)));
    }
    if (stored) store_packet<VecLanes>(residual + at, r);
    return r;
  }

  template <int VecLanes>
  __device__ __forceinline__ packet<VecLanes> reload(long long row, int column) const {
#if EXACTUNE_PLANTED_FAULT == 11
    return reload_packet<VecLanes>(x + row * Hidden + column);
#else
    return reload_packet<VecLanes>(residual + row * Hidden + column);
#endif
  }
};

// __launch_bounds__ of the block, unlike the first family's kernel: the
// residual's loads raised 512-thread variants past the 128 registers a thread
// such a block may have (173 at D8192 on sm_90), so that they could not launch
// (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES on an H100). With the bound ptxas keeps
// them launchable, spilling where it must; blocks of up to 256 threads keep
// their 255.
template <int Hidden, int NumWarps, int RowsPerCta, int VecLanes, int Tail, int Source, int Counts, int Modulation,
          int Elementwise, int Grid>
__global__ void __launch_bounds__(32 * NumWarps)
    gated_residual_layer_norm_modulate(const bf16_bits* __restrict__ x, const bf16_bits* __restrict__ h,
                                       const bf16_bits* __restrict__ gate, const bf16_bits* __restrict__ scale,
                                       const bf16_bits* __restrict__ shift, bf16_bits* __restrict__ residual,
                                       bf16_bits* __restrict__ out, int rows, int tokens_per_batch,
                                       long long modulation_stride, float eps) {
  const gated_residual_rows<Hidden, Elementwise> source{x, h, gate, residual, tokens_per_batch, modulation_stride};
  fused_layer_norm_modulate_rows<Hidden, NumWarps, RowsPerCta, VecLanes, Tail, Source, Counts, Modulation, Elementwise,
                                 Grid>(source, scale, shift, out, rows, tokens_per_batch, modulation_stride, eps);
}

}  // namespace exactune_kernels
