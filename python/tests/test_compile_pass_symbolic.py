"""exactune.compile_pass on graphs of symbolic sizes, on the CPU (run in CI where
torch is installed, skipped without it): torch.compile captures the DiT
adaLN site, the gated residual before it and the q/k norms with dynamic shapes
(automatic, after a second shape, and dynamic=True), and the pass's matchers
take each chain whose layout is provable from the graph's shapes, adding no
guard; what is not provable is left alone: a (1, S, D) row with a symbolic
batch, a broadcast h, q and k of unrelated sizes, an affine layer norm. The
graphs are captured from CPU tensors, so the matchers' device test
(compile_pass.on_served_device) is patched to accept them; no op runs (the
GPU tests, python/tests/gpu/test_compile_pass.py, rewrite and run them).
"""

import unittest
from unittest import mock

try:
    import torch
    import torch.nn.functional as F
except ModuleNotFoundError:
    torch = None
else:
    from exactune import compile_pass


def adaln(x, projection):
    shift, scale, gate = projection.chunk(3, dim=1)
    return F.layer_norm(x, (x.shape[-1],), eps=1e-6) * (1 + scale[:, None]) + shift[:, None], gate


def gated_site(x, h, projection):
    shift, scale, gate = projection.chunk(3, dim=1)
    x = x + gate[:, None] * h
    return x, F.layer_norm(x, (x.shape[-1],), eps=1e-6) * (1 + scale[:, None]) + shift[:, None]


def broadcast_h(x, h, projection):
    shift, scale, gate = projection.chunk(3, dim=1)
    x = x + gate[:, None] * h[:, :1]  # h of one token: not the gated op's layout
    return x, F.layer_norm(x, (x.shape[-1],), eps=1e-6) * (1 + scale[:, None]) + shift[:, None]


def affine(x, projection):
    shift, scale, _ = projection.chunk(3, dim=1)
    return F.layer_norm(x, (x.shape[-1],), 1 + scale[0], None, 1e-6) * (1 + scale[:, None]) + shift[:, None]


def per_token(x, rows):
    # (B, S, D) rows, which the op takes, and the first batch element's (1, S, D) rows, which it takes for B == 1.
    return (F.layer_norm(x, (x.shape[-1],), eps=1e-6) * (1 + rows) + rows,
            F.layer_norm(x, (x.shape[-1],), eps=1e-5) * (1 + rows[:1]) + rows[:1])


def qk_of_qkv(qkv):
    # q and k of one projection: their sizes are the same expressions.
    b, s, _ = qkv.shape
    q, k, _ = qkv.view(b, s, 3, -1, 16).unbind(2)
    return F.layer_norm(q, (q.shape[-1],), eps=1e-6), F.layer_norm(k, (k.shape[-1],), eps=1e-6)


def qk_apart(q, k):
    # q and k as inputs of their own: each gets symbols of its own, not provably one shape.
    return F.layer_norm(q, (q.shape[-1],), eps=1e-6), F.layer_norm(k, (k.shape[-1],), eps=1e-6)


def bf16(*shape):
    return torch.randn(*shape).to(torch.bfloat16)


INPUTS = {  # function: its inputs for (B, S, D)
    adaln: lambda b, s, d: (bf16(b, s, d), bf16(b, 3 * d)),
    gated_site: lambda b, s, d: (bf16(b, s, d), bf16(b, s, d), bf16(b, 3 * d)),
    broadcast_h: lambda b, s, d: (bf16(b, s, d), bf16(b, s, d), bf16(b, 3 * d)),
    affine: lambda b, s, d: (bf16(b, s, d), bf16(b, 3 * d)),
    per_token: lambda b, s, d: (bf16(b, s, d), bf16(b, s, d)),
    qk_of_qkv: lambda b, s, d: (bf16(b, s, 3 * d),),
    qk_apart: lambda b, s, d: (bf16(b, s, d // 16, 16), bf16(b, s, d // 16, 16)),
}


def symbolic_graph(fn, dynamic=None, shapes=((2, 64, 32), (3, 48, 64))):
    """The graph torch.compile captures for fn's last call, after a call at each of `shapes` (B > 1, so that
    the batch is symbolic too)."""
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm.graph)
        return gm.forward

    torch._dynamo.reset()
    compiled = torch.compile(fn, backend=backend, dynamic=dynamic, fullgraph=True)
    for shape in shapes:
        compiled(*INPUTS[fn](*shape))
    return graphs[-1]


def shape_env(graph):
    """The graph's shape environment, from its SymInt placeholders (None for a graph of static sizes)."""
    for node in graph.nodes:
        value = node.meta.get("example_value")
        if node.op == "placeholder" and isinstance(value, torch.SymInt):
            return value.node.shape_env
    return None


def matches(graph):
    """What the pass would rewrite in graph, as its rewrites count them."""
    chains = [chain for ln in graph.nodes if (chain := compile_pass._modulated_norm(ln)) is not None]
    gated = sum(compile_pass._gated_residual(chain[0]) is not None for chain in chains)
    return {"gated_residual_layer_norm_modulate": gated, "layer_norm_modulate": len(chains) - gated,
            "qk_head_layer_norm": len(list(compile_pass._qk_pairs(graph)))}


def found(gated=0, modulate=0, qk=0):
    return {"gated_residual_layer_norm_modulate": gated, "layer_norm_modulate": modulate, "qk_head_layer_norm": qk}


@unittest.skipIf(torch is None, "SKIPPED: the compile pass's CPU tests need torch")
class SymbolicGraphsTest(unittest.TestCase):
    def setUp(self):
        self.cpu = mock.patch.object(compile_pass, "on_served_device", lambda value: True)
        self.cpu.start()

    def tearDown(self):
        self.cpu.stop()
        torch._dynamo.reset()

    def assert_matches(self, fn, want, dynamic=None):
        graph = symbolic_graph(fn, dynamic)
        env = shape_env(graph)
        self.assertIsNotNone(env, "the graph was traced with static sizes")
        guards = len(env.guards)
        self.assertEqual(matches(graph), want)
        self.assertEqual(len(env.guards), guards, "matching added a guard")

    def test_the_chains_of_a_dit_block_match_with_symbolic_sizes(self):
        for dynamic in (None, True):
            with self.subTest(dynamic=dynamic):
                # The rows' hidden size ((s + 2)//3) of the chunked projection is another expression than x's.
                self.assert_matches(adaln, found(modulate=1), dynamic)
                # h's hidden size is a symbol of its own, which the broadcast holds equal to x's.
                self.assert_matches(gated_site, found(gated=1), dynamic)
                self.assert_matches(qk_of_qkv, found(qk=1), dynamic)

    def test_what_is_not_provable_is_left_alone(self):
        # The (1, S, D) rows of a symbolic batch: the (B, S, D) chain alone matches.
        self.assert_matches(per_token, found(modulate=1))
        # A broadcast h: the modulate chain matches, not the gated one.
        self.assert_matches(broadcast_h, found(modulate=1))
        self.assert_matches(affine, found())
        self.assert_matches(qk_apart, found())

    def test_a_batch_of_one_takes_one_rows_of_every_token(self):
        # A batch of 1 is specialized (torch.compile does not trace a size 1 as a symbol): the (1, S, D) rows are
        # then the op's (B, S, D).
        graph = symbolic_graph(per_token, shapes=((1, 64, 32), (1, 48, 64)))
        self.assertIsNotNone(shape_env(graph))
        self.assertEqual(matches(graph), found(modulate=2))

    def test_a_graph_off_cuda_is_left_alone(self):
        graph = symbolic_graph(adaln)
        self.cpu.stop()
        try:
            self.assertEqual(matches(graph), found())
        finally:
            self.cpu.start()


if __name__ == "__main__":
    unittest.main()
