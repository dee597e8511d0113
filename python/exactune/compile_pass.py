"""An opt-in torch.compile pass that routes eager chains to exactune's ops, with
no change to model code:

    import exactune.torch as et
    et.enable_compile_pass()          # then torch.compile(model) as usual

In each graph torch.compile captures (before autograd and Inductor's own
decompositions: Inductor's pre-grad custom pass), it rewrites

    F.layer_norm(x, (D,), eps=eps) * (1 + scale) + shift
        -> torch.ops.exactune.layer_norm_modulate(x, scale, shift, eps)
    F.layer_norm(q, (Dh,), eps=eps), F.layer_norm(k, (Dh,), eps=eps)
        -> torch.ops.exactune.qk_head_layer_norm(q, k, eps)
    r = x + gate * h; F.layer_norm(r, (D,), eps=eps) * (1 + scale) + shift
        -> r, y = torch.ops.exactune.gated_residual_layer_norm_modulate(x, h, gate, scale, shift, eps)

where x (and h) is a bf16 (B, S, D) tensor, gate, scale and shift bf16
(B, 1, D), (1, 1, D) or (B, S, D) (the shapes that broadcast against x as the
chain is written), q and k bf16 (B, S, H, Dh) of one shape, and LayerNorm has
no weight or bias. The gated chain is matched first: left to the first
rewrite, its residual x + gate * h would stay with Inductor, which computes
it in fp32 and rounds once where eager rounds the product and the sum.
Anything else is left as it is. The ops run behind their exactness gate, so a
rewritten graph gives eager's bits for the rewritten chains; Inductor's own
fusion of the other elementwise ops in a graph changes their bits whatever
this pass does.

Only the graph's structure and its nodes' example values (shapes, dtypes) are
read: the pass never runs a tensor. Graphs traced with symbolic sizes
(torch.compile's dynamic shapes: on by itself once a function meets a second
shape, or dynamic=True) are matched as static ones are, sizes compared as
expressions: a size matches only where the shape environment proves it
without a guard (statically_known_true), so the pass adds no guard and a
rewritten graph serves every shape the graph's own guards admit. A modulate
chain (and a gated residual) is rewritten only where its output provably has
x's shape; a row's or h's size provably not 1 is then x's, as the broadcast
forces, even where the two are different expressions (a chunked projection's
((s0 + 2)//3), x's s1, held equal by a guard the broadcast made). What is not
provable is left as it is: a (1, S, D) row with a symbolic batch (the kernels
serve it for B == 1 only; a batch of 1 stays a number), an h not provably of
x's shape, q and k not provably of one shape (inputs of their own get
symbols of their own; views of one projection share them), a
normalized_shape not provably x's last size.
"""

import operator

import torch
import torch.nn.functional as F
from torch.fx.experimental.symbolic_shapes import statically_known_true

_LAYER_NORMS = (F.layer_norm, torch.layer_norm, torch.ops.aten.layer_norm.default)
_ADDS = (operator.add, torch.add, torch.ops.aten.add.Tensor)
_MULS = (operator.mul, torch.mul, torch.ops.aten.mul.Tensor)

# The passes' rewrites since the last enable(), for tests and logs.
rewrites = {"layer_norm_modulate": 0, "qk_head_layer_norm": 0, "gated_residual_layer_norm_modulate": 0}


def _value(node):
    """A node's example value (a FakeTensor) as torch.compile recorded it, or None."""
    return node.meta.get("example_value", node.meta.get("val")) if hasattr(node, "meta") else None


def on_served_device(value):
    """Whether the ops serve a tensor on the device of `value` (an example value): CUDA. The matchers' only
    device test, a function of its own so that a test on a machine without a GPU can patch it (to accept the
    CPU) and match graphs captured there."""
    return value.is_cuda


def _same(a, b):
    """Whether sizes a and b (ints or SymInts) are provably equal: equal numbers, or expressions the shape
    environment proves equal (statically_known_true: never a guard, so "unknown" is "no")."""
    return statically_known_true(a == b)


def _same_shape(a, b):
    return len(a) == len(b) and all(_same(m, n) for m, n in zip(a, b))


def _broadcast_to_x(size, x_size):
    """Whether an operand's size is x's, where the broadcast it takes part in provably gives x's shape: then the
    operand's size is 1 or x's at run time, so x's where it is provably so, or provably not 1 (a different
    expression that the broadcast, and the guards it made, hold equal: a chunked row's ((s0 + 2)//3))."""
    return _same(size, x_size) or statically_known_true(size != 1)


def _size(arg):
    """A call's size argument as a value: an int, or the SymInt of the graph node that stands for it; else
    None."""
    if isinstance(arg, torch.fx.Node):
        arg = _value(arg)
    return arg if isinstance(arg, (int, torch.SymInt)) and not isinstance(arg, bool) else None


def _is_call(node, targets, method):
    if not isinstance(node, torch.fx.Node):
        return False
    return (node.op == "call_function" and node.target in targets) or (node.op == "call_method" and node.target == method)


def _operands(node):
    """The two operands of a binary add or mul without alpha, else None."""
    if node.kwargs.get("alpha", 1) != 1 or len(node.args) != 2:
        return None
    return node.args


def _layer_norm(node):
    """(input node, eps) of F.layer_norm(input, (last dim,), None, None, eps), else None."""
    if not _is_call(node, _LAYER_NORMS, None):
        return None
    names = ("input", "normalized_shape", "weight", "bias", "eps")
    bound = dict(zip(names, node.args))
    bound.update(node.kwargs)
    if bound.get("weight") is not None or bound.get("bias") is not None:
        return None
    x, shape, eps = bound.get("input"), bound.get("normalized_shape"), bound.get("eps", 1e-5)
    value = _value(x)
    if value is None or not isinstance(eps, float) or not isinstance(shape, (tuple, list)) or len(shape) != 1:
        return None
    if value.dtype != torch.bfloat16 or not on_served_device(value) or value.dim() == 0:
        return None
    size = _size(shape[0])
    if size is None or not _same(size, value.shape[-1]):
        return None
    return x, eps


def _modulation_row(node, x_shape):
    """node, when it is a bf16 (B, 1, D), (1, 1, D) or (B, S, D) tensor for x of x_shape: a layout the op takes
    with the bits of the broadcast chain. The caller has proved that the chain's output has x's shape, which the
    row broadcasts to (_broadcast_to_x)."""
    value = _value(node)
    if value is None or not isinstance(value, torch.Tensor) or value.dtype != torch.bfloat16 or value.dim() != 3:
        return None
    b, s, d = x_shape
    rb, rs, rd = value.shape
    if not _broadcast_to_x(rd, d):
        return None
    per_batch = _broadcast_to_x(rb, b)
    if not (per_batch or _same(rb, 1)):
        return None
    if _same(rs, 1):
        return node  # (B, 1, D) or (1, 1, D)
    # (B, S, D); a (1, S, D) row of a batch not provably 1 is not a layout the op takes.
    return node if per_batch and _broadcast_to_x(rs, s) else None


def _one_plus(node):
    """scale, for a node `1 + scale` or `scale + 1`, else None."""
    if not _is_call(node, _ADDS, "add"):
        return None
    operands = _operands(node)
    if operands is None:
        return None
    a, b = operands
    if isinstance(a, (int, float)) and a == 1 and isinstance(b, torch.fx.Node):
        return b
    if isinstance(b, (int, float)) and b == 1 and isinstance(a, torch.fx.Node):
        return a
    return None


def _only_user(node):
    users = list(node.users)
    return users[0] if len(users) == 1 else None


def _modulated_norm(ln):
    """For a layer-norm node ln: the chain F.layer_norm(x) * (1 + scale) + shift it starts, as
    (x, eps, scale, shift, [its nodes, last first]), when the op serves its layout; else None."""
    found = _layer_norm(ln)
    if found is None:
        return None
    x, eps = found
    x_shape = tuple(_value(x).shape)
    mul = _only_user(ln)
    if len(x_shape) != 3 or mul is None or not _is_call(mul, _MULS, "mul") or _operands(mul) is None:
        return None
    factor = [a for a in _operands(mul) if a is not ln]
    scale = _one_plus(factor[0]) if len(factor) == 1 else None
    add = _only_user(mul)
    if scale is None or add is None or not _is_call(add, _ADDS, "add") or _operands(add) is None:
        return None
    # The chain's output must have x's shape, which the op's output has: the rows then broadcast to it.
    output = _value(add)
    if not isinstance(output, torch.Tensor) or not _same_shape(tuple(output.shape), x_shape):
        return None
    shift = [a for a in _operands(add) if a is not mul]
    if len(shift) != 1 or not isinstance(shift[0], torch.fx.Node):
        return None
    scale, shift = _modulation_row(scale, x_shape), _modulation_row(shift[0], x_shape)
    if scale is None or shift is None:
        return None
    return x, eps, scale, shift, [add, mul, factor[0], ln]


def _erase_unused(graph, nodes):
    for dead in nodes:
        if not dead.users:
            graph.erase_node(dead)


def rewrite_layer_norm_modulate(graph):
    """Rewrites each F.layer_norm(x) * (1 + scale) + shift of `graph` that the op serves; returns how many."""
    done = 0
    for ln in list(graph.nodes):
        chain = _modulated_norm(ln)
        if chain is None:
            continue
        x, eps, scale, shift, nodes = chain
        add = nodes[0]
        with graph.inserting_before(add):
            fused = graph.call_function(torch.ops.exactune.layer_norm_modulate.default, (x, scale, shift, eps))
        fused.meta.update(add.meta)
        add.replace_all_uses_with(fused)
        _erase_unused(graph, nodes)
        done += 1
    return done


def _gated_residual(node):
    """(x, h, gate, product) of a node r = x + gate * h (either order of each operation) with x and h bf16
    (B, S, D) of one shape, r of that shape too, and gate a modulation row of x; else None. With r provably of
    x's shape, h's sizes broadcast to x's (_broadcast_to_x): an h provably of x's sizes, or of sizes provably not
    1 (a symbol of its own that a guard holds equal to x's), is x's shape; a broadcast h is not."""
    if not _is_call(node, _ADDS, "add") or _operands(node) is None:
        return None
    r_value = _value(node)
    if not isinstance(r_value, torch.Tensor):
        return None
    for x, product in (node.args, node.args[::-1]):
        if not (isinstance(x, torch.fx.Node) and _is_call(product, _MULS, "mul") and _operands(product) is not None
                and len(product.users) == 1):
            continue
        x_value = _value(x)
        if x_value is None or not isinstance(x_value, torch.Tensor) or x_value.dim() != 3 \
                or x_value.dtype != torch.bfloat16:
            continue
        x_shape = tuple(x_value.shape)
        if not _same_shape(tuple(r_value.shape), x_shape):
            continue
        for gate, h in (product.args, product.args[::-1]):
            h_value = _value(h) if isinstance(h, torch.fx.Node) else None
            if h_value is None or not isinstance(h_value, torch.Tensor) or h_value.dtype != torch.bfloat16 \
                    or h_value.dim() != 3 or not all(map(_broadcast_to_x, h_value.shape, x_shape)):
                continue
            if isinstance(gate, torch.fx.Node) and _modulation_row(gate, x_shape) is not None:
                return x, h, gate, product
    return None


def rewrite_gated_residual_layer_norm_modulate(graph):
    """Rewrites each r = x + gate * h whose r feeds F.layer_norm(r) * (1 + scale) + shift into the gated op (r's
    other users take the op's residual); returns how many."""
    done = 0
    for ln in list(graph.nodes):
        chain = _modulated_norm(ln)
        if chain is None:
            continue
        found = _gated_residual(chain[0])
        if found is None:
            continue
        residual, eps, scale, shift, nodes = chain
        x, h, gate, product = found
        # The fused node goes after the last of the residual, scale and shift (a chain often takes its rows'
        # views after the residual), before every use of the residual but the chain's own layer norm.
        order = {node: i for i, node in enumerate(graph.nodes)}
        anchor = max((residual, scale, shift), key=order.__getitem__)
        if any(order[user] <= order[anchor] for user in residual.users if user is not ln):
            continue
        with graph.inserting_before(anchor.next):
            fused = graph.call_function(torch.ops.exactune.gated_residual_layer_norm_modulate.default,
                                        (x, h, gate, scale, shift, eps))
            residual_out = graph.call_function(operator.getitem, (fused, 0))
            y_out = graph.call_function(operator.getitem, (fused, 1))
        residual_out.meta.update(residual.meta)
        y_out.meta.update(nodes[0].meta)
        nodes[0].replace_all_uses_with(y_out)
        _erase_unused(graph, nodes)
        residual.replace_all_uses_with(residual_out)
        _erase_unused(graph, (residual, product))
        done += 1
    return done


def _qk_pairs(graph):
    """The layer norms of q and k to pair, as (q_ln, q, k_ln, k, eps): 4-D bf16 inputs provably of one shape,
    one eps, no affine, k computed before q's layer norm (the fused node takes its place). Pairs are made as
    they are taken, so the caller may rewrite each before taking the next."""
    heads = [(ln, *found) for ln in graph.nodes
             if (found := _layer_norm(ln)) is not None and _value(found[0]).dim() == 4]
    order = {node: i for i, node in enumerate(graph.nodes)}
    used = set()
    for i, (q_ln, q, eps) in enumerate(heads):
        if q_ln in used:
            continue
        for k_ln, k, k_eps in heads[i + 1:]:
            if k_ln in used or k_eps != eps or k is q or order[k] >= order[q_ln] \
                    or not _same_shape(tuple(_value(k).shape), tuple(_value(q).shape)):
                continue
            used.update((q_ln, k_ln))
            yield q_ln, q, k_ln, k, eps
            break


def rewrite_qk_head_layer_norm(graph):
    """Pairs the layer norms of q and k (4-D bf16 of one shape, one eps, no affine) into the qk op; returns how
    many pairs."""
    done = 0
    for q_ln, q, k_ln, k, eps in _qk_pairs(graph):
        with graph.inserting_before(q_ln):
            fused = graph.call_function(torch.ops.exactune.qk_head_layer_norm.default, (q, k, eps))
            q_out = graph.call_function(operator.getitem, (fused, 0))
            k_out = graph.call_function(operator.getitem, (fused, 1))
        q_out.meta.update(q_ln.meta)
        k_out.meta.update(k_ln.meta)
        q_ln.replace_all_uses_with(q_out)
        k_ln.replace_all_uses_with(k_out)
        graph.erase_node(q_ln)
        graph.erase_node(k_ln)
        done += 1
    return done


def rewrite(graph):
    """The three rewrites on one graph, the gated chain first; returns {op: rewrites}."""
    counts = {"gated_residual_layer_norm_modulate": rewrite_gated_residual_layer_norm_modulate(graph),
              "layer_norm_modulate": rewrite_layer_norm_modulate(graph),
              "qk_head_layer_norm": rewrite_qk_head_layer_norm(graph)}
    if any(counts.values()):
        graph.lint()
    for op, n in counts.items():
        rewrites[op] += n
    return counts


def _pre_grad_pass(graph):
    rewrite(graph)


def enable():
    """Installs the rewrite as Inductor's pre-grad custom pass (refused if another pass is installed there)."""
    import torch._inductor.config as inductor_config

    installed = inductor_config.pre_grad_custom_pass
    if installed is not None and installed is not _pre_grad_pass:
        raise RuntimeError("exactune: Inductor's pre_grad_custom_pass is already set to another pass")
    for op in rewrites:
        rewrites[op] = 0
    inductor_config.pre_grad_custom_pass = _pre_grad_pass


def disable():
    import torch._inductor.config as inductor_config

    if inductor_config.pre_grad_custom_pass is _pre_grad_pass:
        inductor_config.pre_grad_custom_pass = None
