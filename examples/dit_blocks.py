"""Two small diffusion-transformer blocks whose adaLN sites call pluggable ops.

Each block takes, at construction, the callables of its two adaLN sites:
`modulate` computes `LayerNorm(x) * (1 + scale) + shift` (the first site, at
the block's input), `gated_modulate` the attention's gated residual and the
next site, `x = x + gate * h; y = LayerNorm(x) * (1 + scale) + shift`,
returning (x, y). The defaults are the eager PyTorch chains below;
`run_dit_blocks.py` builds a second copy with identical weights that uses
`exactune.torch.layer_norm_modulate` and
`exactune.torch.gated_residual_layer_norm_modulate` instead and checks the
outputs bit for bit.

The blocks are stand-ins, not the real models: random (seeded) weights, the
real hidden sizes and the real way the scale/shift rows reach the norm
(strided views of one adaLN projection), simplified everywhere else.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def eager_layer_norm_modulate(x, scale, shift, eps):
    """The eager chain the fused op must reproduce bit for bit (bf16)."""
    if scale.dim() == 2:  # (B, D) rows apply to every token of their batch
        scale, shift = scale[:, None], shift[:, None]
    return F.layer_norm(x, (x.shape[-1],), eps=eps) * (1 + scale) + shift


def eager_gated_residual_layer_norm_modulate(x, h, gate, scale, shift, eps):
    """The block's gated residual and the next adaLN site, as eager runs them: (new x, its norm and modulate)."""
    if gate.dim() == 2:
        gate = gate[:, None]
    x = x + gate * h
    return x, eager_layer_norm_modulate(x, scale, shift, eps)


def _attention(qkv_out, heads):
    # (B, S, 3*D) -> SDPA over (B, H, S, Dh) -> (B, S, D)
    b, s, three_d = qkv_out.shape
    q, k, v = qkv_out.view(b, s, 3, heads, three_d // (3 * heads)).permute(2, 0, 3, 1, 4)
    return F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, s, -1)


class SanaLikeBlock(nn.Module):
    """Sana 1600M block (D=2240, 20 heads of 112) with its adaLN-single modulation.

    Sana has no per-block modulation MLP: one shared timestep projection t of
    shape (B, 6*D) is added to a learned per-block `scale_shift_table` (6, D);
    unbind(1) then yields six (B, D) views with row stride 6*D, which is
    exactly the strided scale/shift layout the fused op must accept.
    Simplifications: Sana uses linear (ReLU-kernel) attention; plain softmax
    SDPA is used here. Sana's MLP is GLUMBConv (1x1 conv, depthwise 3x3 conv,
    GLU, 1x1 conv); a token-wise SiLU-gated GLU MLP is used here. Cross-attention
    to the text is omitted: it has no adaLN site.
    """

    eps = 1e-6

    def __init__(self, hidden=2240, heads=20, mlp_ratio=2.5, modulate=eager_layer_norm_modulate,
                 gated_modulate=eager_gated_residual_layer_norm_modulate, seed=0, device="cpu", dtype=torch.bfloat16):
        super().__init__()
        self.hidden, self.heads = hidden, heads
        self.modulate, self.gated_modulate = modulate, gated_modulate
        inner = int(hidden * mlp_ratio)
        # A private seeded RNG stream: same seed, same weights, caller's RNG untouched.
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            # Sana initialises the table as randn / sqrt(D).
            self.scale_shift_table = nn.Parameter(torch.randn(6, hidden) / hidden ** 0.5)
            self.qkv = nn.Linear(hidden, 3 * hidden)
            self.proj = nn.Linear(hidden, hidden)
            self.mlp_in = nn.Linear(hidden, 2 * inner)  # value and gate halves
            self.mlp_out = nn.Linear(inner, hidden)
        self.to(device=device, dtype=dtype)

    def example_inputs(self, batch=2, tokens=1024, seed=1):
        g = torch.Generator().manual_seed(seed)
        p = self.scale_shift_table
        x = torch.randn(batch, tokens, self.hidden, generator=g).to(p.device, p.dtype)
        t = torch.randn(batch, 6 * self.hidden, generator=g).to(p.device, p.dtype)
        return x, t

    def forward(self, x, t):
        b = x.shape[0]
        shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp = (
            self.scale_shift_table[None] + t.reshape(b, 6, -1)).unbind(1)  # (B, D) strided views
        h = self.modulate(x, scale_msa, shift_msa, self.eps)
        attention = self.proj(_attention(self.qkv(h), self.heads))
        x, h = self.gated_modulate(x, attention, gate_msa, scale_mlp, shift_mlp, self.eps)
        value, gate = self.mlp_in(h).chunk(2, dim=-1)
        return x + gate_mlp[:, None] * self.mlp_out(value * F.silu(gate))


class FluxLikeBlock(nn.Module):
    """FLUX.1-style block on the joint text+image stream (D=3072, 24 heads of 128).

    As in FLUX, the modulation is Linear(silu(vec)) with vec (B, D); chunk(6)
    of the (B, 6*D) result gives (B, D) views with row stride 6*D, used as
    `[:, None]`, i.e. (B, 1, D) views. FLUX's single-stream block has one
    modulated norm feeding attention and MLP in parallel (3*D modulation); to
    exercise two adaLN sites this block uses the double-stream layout (6*D:
    pre-norm attention, then pre-norm MLP) over the single-stream token count.
    Simplifications: no RoPE and no q/k RMSNorm.
    """

    eps = 1e-6

    def __init__(self, hidden=3072, heads=24, mlp_ratio=4, modulate=eager_layer_norm_modulate,
                 gated_modulate=eager_gated_residual_layer_norm_modulate, seed=0, device="cpu", dtype=torch.bfloat16):
        super().__init__()
        self.hidden, self.heads = hidden, heads
        self.modulate, self.gated_modulate = modulate, gated_modulate
        inner = int(hidden * mlp_ratio)
        with torch.random.fork_rng(devices=[]):  # seeded weights, as in SanaLikeBlock
            torch.manual_seed(seed)
            self.modulation = nn.Linear(hidden, 6 * hidden)
            self.qkv = nn.Linear(hidden, 3 * hidden)
            self.proj = nn.Linear(hidden, hidden)
            self.mlp_in = nn.Linear(hidden, inner)
            self.mlp_out = nn.Linear(inner, hidden)
        self.to(device=device, dtype=dtype)

    def example_inputs(self, batch=1, tokens=4096 + 512, seed=1):
        g = torch.Generator().manual_seed(seed)
        w = self.qkv.weight
        x = torch.randn(batch, tokens, self.hidden, generator=g).to(w.device, w.dtype)
        vec = torch.randn(batch, self.hidden, generator=g).to(w.device, w.dtype)
        return x, vec

    def forward(self, x, vec):
        shift1, scale1, gate1, shift2, scale2, gate2 = self.modulation(F.silu(vec)).chunk(6, dim=-1)
        # LayerNorm without affine (FLUX: elementwise_affine=False, eps=1e-6).
        h = self.modulate(x, scale1[:, None], shift1[:, None], self.eps)
        attention = self.proj(_attention(self.qkv(h), self.heads))
        x, h = self.gated_modulate(x, attention, gate1[:, None], scale2[:, None], shift2[:, None], self.eps)
        mlp = self.mlp_out(F.gelu(self.mlp_in(h), approximate="tanh"))
        return x + gate2[:, None] * mlp
