"""The workloads of the benchmark suite.

Each workload is one function `@main` in the transformer dialect, its inputs
(generated with numpy, the same arrays for every contestant), its FLOP and
byte counts, and the same computation written for numpy and for PyTorch the
way their users write it.
"""

import math

import numpy as np

GPT2_D, GPT2_HEADS, GPT2_MLP = 768, 12, 3072


class Workload:
    def __init__(self, name, family, mlir, inputs, flops, bytes_moved,
                 numpy_fn, torch_fn):
        self.name = name
        self.family = family
        self.mlir = mlir
        self.inputs = inputs
        self.flops = flops
        self.bytes_moved = bytes_moved
        self.numpy_fn = numpy_fn
        self.torch_fn = torch_fn


def _t(shape):
    return "tensor<%sxf32>" % "x".join(str(d) for d in shape)


def _rand(rng, shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


# --- contractions ---------------------------------------------------------

def matmul(m, k, n, rng):
    a, b = _rand(rng, (m, k)), _rand(rng, (k, n))
    mlir = f"""func.func @main(%a: {_t((m, k))}, %b: {_t((k, n))}) -> {_t((m, n))} {{
  %c = transformer.matmul %a, %b : {_t((m, k))}, {_t((k, n))} -> {_t((m, n))}
  return %c : {_t((m, n))}
}}
"""
    name = f"matmul {m}x{k}x{n}" if not (m == k == n) else f"matmul {m}^3"
    return Workload(name, "contraction", mlir, [a, b], 2.0 * m * k * n,
                    4 * (m * k + k * n + m * n),
                    lambda a, b: a @ b,
                    lambda torch, a, b: torch.matmul(a, b))


def linear(seq, k, n, rng):
    x, w, b = _rand(rng, (seq, k)), _rand(rng, (n, k), 0.02), _rand(rng, (n,))
    mlir = f"""func.func @main(%x: {_t((seq, k))}, %w: {_t((n, k))}, %b: {_t((n,))}) -> {_t((seq, n))} {{
  %y = transformer.linear %x, %w, %b : {_t((seq, k))}, {_t((n, k))}, {_t((n,))} -> {_t((seq, n))}
  return %y : {_t((seq, n))}
}}
"""
    return Workload(f"linear {seq}x{k} -> {n}", "contraction", mlir,
                    [x, w, b], 2.0 * seq * k * n,
                    4 * (seq * k + n * k + seq * n),
                    lambda x, w, b: x @ w.T + b,
                    lambda torch, x, w, b: torch.nn.functional.linear(x, w, b))


# --- row reductions and element-wise work ---------------------------------

def layer_norm(rows, d, rng):
    x, g, b = _rand(rng, (rows, d)), _rand(rng, (d,)), _rand(rng, (d,))
    mlir = f"""func.func @main(%x: {_t((rows, d))}, %g: {_t((d,))}, %b: {_t((d,))}) -> {_t((rows, d))} {{
  %y = transformer.layer_norm %x, %g, %b : {_t((rows, d))}, {_t((d,))}, {_t((d,))} -> {_t((rows, d))}
  return %y : {_t((rows, d))}
}}
"""

    def np_ln(x, g, b):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-5) * g + b

    return Workload(f"layer_norm {rows}x{d}", "row", mlir, [x, g, b],
                    8.0 * rows * d, 8 * rows * d, np_ln,
                    lambda torch, x, g, b: torch.nn.functional.layer_norm(
                        x, (d,), g, b, 1e-5))


def softmax(rows, d, rng):
    x = _rand(rng, (rows, d))
    mlir = f"""func.func @main(%x: {_t((rows, d))}) -> {_t((rows, d))} {{
  %y = transformer.softmax %x : {_t((rows, d))} -> {_t((rows, d))}
  return %y : {_t((rows, d))}
}}
"""

    def np_softmax(x):
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    return Workload(f"softmax {rows}x{d}", "row", mlir, [x], 5.0 * rows * d,
                    8 * rows * d, np_softmax,
                    lambda torch, x: torch.softmax(x, -1))


def gelu(rows, d, rng):
    x = _rand(rng, (rows, d))
    mlir = f"""func.func @main(%x: {_t((rows, d))}) -> {_t((rows, d))} {{
  %y = transformer.gelu %x : {_t((rows, d))} -> {_t((rows, d))}
  return %y : {_t((rows, d))}
}}
"""
    c = math.sqrt(2.0 / math.pi)

    def np_gelu(x):
        return 0.5 * x * (1.0 + np.tanh(c * (x + 0.044715 * x ** 3)))

    return Workload(f"gelu {rows}x{d}", "elementwise", mlir, [x],
                    8.0 * rows * d, 8 * rows * d, np_gelu,
                    lambda torch, x: torch.nn.functional.gelu(
                        x, approximate="tanh"))


def add(rows, d, rng):
    a, b = _rand(rng, (rows, d)), _rand(rng, (rows, d))
    mlir = f"""func.func @main(%a: {_t((rows, d))}, %b: {_t((rows, d))}) -> {_t((rows, d))} {{
  %y = transformer.add %a, %b : {_t((rows, d))}, {_t((rows, d))} -> {_t((rows, d))}
  return %y : {_t((rows, d))}
}}
"""
    return Workload(f"add {rows}x{d}", "elementwise", mlir, [a, b],
                    1.0 * rows * d, 12 * rows * d, lambda a, b: a + b,
                    lambda torch, a, b: a + b)


# --- attention ------------------------------------------------------------

def attention(batch, heads, sq, sk, d, causal, rng, window=None):
    q = _rand(rng, (batch, heads, sq, d))
    k = _rand(rng, (batch, heads, sk, d))
    v = _rand(rng, (batch, heads, sk, d))
    tq, tk = _t((batch, heads, sq, d)), _t((batch, heads, sk, d))
    attrs = []
    if causal:
        attrs.append("causal")
    if window:
        attrs.append(f"window = {window} : i64")
    attr = " {%s}" % ", ".join(attrs) if attrs else ""
    mlir = f"""func.func @main(%q: {tq}, %k: {tk}, %v: {tk}) -> {tq} {{
  %o = transformer.attention %q, %k, %v{attr} : {tq}, {tk}, {tk} -> {tq}
  return %o : {tq}
}}
"""
    scale = 1.0 / math.sqrt(d)
    # Query i (aligned bottom-right) sees key j iff j <= i + sk - sq, and
    # with a window also i + sk - sq - window < j.
    i = np.arange(sq)[:, None] + sk - sq
    j = np.arange(sk)[None, :]
    hidden = np.zeros((sq, sk), dtype=bool)
    if causal:
        hidden |= j > i
    if window:
        hidden |= j <= i - window

    def np_attention(q, k, v):
        s = (q @ np.swapaxes(k, -1, -2)) * scale
        s = np.where(hidden, -np.inf, s)
        e = np.exp(s - s.max(-1, keepdims=True))
        return (e / e.sum(-1, keepdims=True)) @ v

    def torch_attention(torch, q, k, v):
        # How PyTorch 1.13 users write it (no scaled_dot_product_attention).
        s = torch.matmul(q, k.transpose(-1, -2)) * scale
        if causal or window:
            s = s.masked_fill(torch.from_numpy(hidden), float("-inf"))
        return torch.matmul(torch.softmax(s, -1), v)

    kind = "causal" if causal else "full"
    if window:
        kind = f"window {window}"
    name = f"attention ({batch},{heads},{sq},{d}) {kind}"
    if sq != sk:
        name = f"attention ({batch},{heads},{sq},{d}) kv {sk} {kind}"
    # FLOPs of the full product, as the attention issue counts them.
    flops = 4.0 * batch * heads * sq * sk * d
    bytes_moved = 4 * batch * heads * (2 * sq * d + 2 * sk * d)
    return Workload(name, "attention", mlir, [q, k, v], flops, bytes_moved,
                    np_attention, torch_attention)


# --- GPT-2 block ----------------------------------------------------------

_GPT2_PARAMS = ["g1", "b1", "wqkv", "bqkv", "wo", "bo", "g2", "b2", "wfc",
                "bfc", "wpr", "bpr"]


def _gpt2_params(rng, d, mlp):
    return {
        "g1": _rand(rng, (d,)), "b1": _rand(rng, (d,), 0.02),
        "wqkv": _rand(rng, (3 * d, d), 0.02), "bqkv": _rand(rng, (3 * d,), 0.02),
        "wo": _rand(rng, (d, d), 0.02), "bo": _rand(rng, (d,), 0.02),
        "g2": _rand(rng, (d,)), "b2": _rand(rng, (d,), 0.02),
        "wfc": _rand(rng, (mlp, d), 0.02), "bfc": _rand(rng, (mlp,), 0.02),
        "wpr": _rand(rng, (d, mlp), 0.02), "bpr": _rand(rng, (d,), 0.02),
    }


def _gpt2_param_types(d, mlp):
    return {"g1": _t((d,)), "b1": _t((d,)), "wqkv": _t((3 * d, d)),
            "bqkv": _t((3 * d,)), "wo": _t((d, d)), "bo": _t((d,)),
            "g2": _t((d,)), "b2": _t((d,)), "wfc": _t((mlp, d)),
            "bfc": _t((mlp,)), "wpr": _t((d, mlp)), "bpr": _t((d,))}


def _gpt2_arg(name, type_):
    """An argument declaration: the 2-D weights are marked
    transformer.constant (the same on every call, as a model's weights
    are), so that their transposed copies are made on the first call only
    (docs/performance.md)."""
    constant = " {transformer.constant}" if name.startswith("w") else ""
    return type_ + constant


def _gpt2_layer_mlir(seq, d, heads, mlp, x, p, out):
    """The ops of one block from %x to %out; %p<name> are its parameters."""
    hd = d // heads
    X, D3, M = _t((1, seq, d)), _t((1, seq, 3 * d)), _t((1, seq, mlp))
    H5 = _t((1, seq, 3, heads, hd))
    HT = _t((3, 1, heads, seq, hd))
    HQ = _t((1, heads, seq, hd))
    HM = _t((1, seq, heads, hd))
    T = _gpt2_param_types(d, mlp)
    v = lambda name: "%" + out + "_" + name  # noqa: E731
    a = lambda name: "%" + p + name  # noqa: E731
    return f"""  {v('h')} = transformer.layer_norm %{x}, {a('g1')}, {a('b1')} : {X}, {T['g1']}, {T['b1']} -> {X}
  {v('qkv')} = transformer.linear {v('h')}, {a('wqkv')}, {a('bqkv')} : {X}, {T['wqkv']}, {T['bqkv']} -> {D3}
  {v('split')} = tensor.expand_shape {v('qkv')} [[0], [1], [2, 3, 4]] output_shape [1, {seq}, 3, {heads}, {hd}] : {D3} into {H5}
  {v('heads')} = transformer.transpose {v('split')} {{permutation = array<i64: 2, 0, 3, 1, 4>}} : {H5} -> {HT}
  {v('q')} = tensor.extract_slice {v('heads')}[0, 0, 0, 0, 0] [1, 1, {heads}, {seq}, {hd}] [1, 1, 1, 1, 1] : {HT} to {HQ}
  {v('k')} = tensor.extract_slice {v('heads')}[1, 0, 0, 0, 0] [1, 1, {heads}, {seq}, {hd}] [1, 1, 1, 1, 1] : {HT} to {HQ}
  {v('v')} = tensor.extract_slice {v('heads')}[2, 0, 0, 0, 0] [1, 1, {heads}, {seq}, {hd}] [1, 1, 1, 1, 1] : {HT} to {HQ}
  {v('a')} = transformer.attention {v('q')}, {v('k')}, {v('v')} {{causal}} : {HQ}, {HQ}, {HQ} -> {HQ}
  {v('at')} = transformer.transpose {v('a')} {{permutation = array<i64: 0, 2, 1, 3>}} : {HQ} -> {HM}
  {v('merged')} = tensor.collapse_shape {v('at')} [[0], [1], [2, 3]] : {HM} into {X}
  {v('proj')} = transformer.linear {v('merged')}, {a('wo')}, {a('bo')} : {X}, {T['wo']}, {T['bo']} -> {X}
  {v('x1')} = transformer.add %{x}, {v('proj')} : {X}, {X} -> {X}
  {v('h2')} = transformer.layer_norm {v('x1')}, {a('g2')}, {a('b2')} : {X}, {T['g2']}, {T['b2']} -> {X}
  {v('fc')} = transformer.linear {v('h2')}, {a('wfc')}, {a('bfc')} : {X}, {T['wfc']}, {T['bfc']} -> {M}
  {v('act')} = transformer.gelu {v('fc')} : {M} -> {M}
  {v('mlp')} = transformer.linear {v('act')}, {a('wpr')}, {a('bpr')} : {M}, {T['wpr']}, {T['bpr']} -> {X}
  %{out} = transformer.add {v('x1')}, {v('mlp')} : {X}, {X} -> {X}
"""


def _np_gpt2_block(seq, d, heads, mlp):
    hd = d // heads
    c = math.sqrt(2.0 / math.pi)
    causal = np.triu(np.ones((seq, seq), dtype=bool), 1)

    def np_block(x, g1, b1, wqkv, bqkv, wo, bo, g2, b2, wfc, bfc, wpr, bpr):
        def ln(t, g, b):
            m = t.mean(-1, keepdims=True)
            var = ((t - m) ** 2).mean(-1, keepdims=True)
            return (t - m) / np.sqrt(var + 1e-5) * g + b
        qkv = ln(x, g1, b1) @ wqkv.T + bqkv
        qkv = qkv.reshape(1, seq, 3, heads, hd).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        s = (q @ np.swapaxes(k, -1, -2)) / math.sqrt(hd)
        s = np.where(causal, -np.inf, s)
        e = np.exp(s - s.max(-1, keepdims=True))
        a = (e / e.sum(-1, keepdims=True)) @ v
        a = a.transpose(0, 2, 1, 3).reshape(1, seq, d)
        x1 = x + a @ wo.T + bo
        f = ln(x1, g2, b2) @ wfc.T + bfc
        f = 0.5 * f * (1.0 + np.tanh(c * (f + 0.044715 * f ** 3)))
        return x1 + f @ wpr.T + bpr

    def torch_block(torch, x, g1, b1, wqkv, bqkv, wo, bo, g2, b2, wfc, bfc,
                    wpr, bpr):
        F = torch.nn.functional
        qkv = F.linear(F.layer_norm(x, (d,), g1, b1, 1e-5), wqkv, bqkv)
        qkv = qkv.view(1, seq, 3, heads, hd).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(hd)
        s = s.masked_fill(torch.from_numpy(causal), float("-inf"))
        a = torch.matmul(torch.softmax(s, -1), v)
        a = a.transpose(1, 2).reshape(1, seq, d)
        x1 = x + F.linear(a, wo, bo)
        f = F.gelu(F.linear(F.layer_norm(x1, (d,), g2, b2, 1e-5), wfc, bfc),
                   approximate="tanh")
        return x1 + F.linear(f, wpr, bpr)

    return np_block, torch_block


def _gpt2_flops(seq, d, heads, mlp):
    return seq * (2.0 * d * (3 * d + d + 2 * mlp)) + 4.0 * heads * seq * seq * (
        d // heads)


def gpt2_block(seq, rng, d=GPT2_D, heads=GPT2_HEADS, mlp=GPT2_MLP):
    x = _rand(rng, (1, seq, d))
    params = _gpt2_params(rng, d, mlp)
    T = _gpt2_param_types(d, mlp)
    X = _t((1, seq, d))
    args = ", ".join(["%x: " + X] + ["%%%s: %s" % (n, _gpt2_arg(n, T[n]))
                                      for n in _GPT2_PARAMS])
    mlir = (f"func.func @main({args}) -> {X} {{\n" +
            _gpt2_layer_mlir(seq, d, heads, mlp, "x", "", "out") +
            f"  return %out : {X}\n}}\n")
    inputs = [x] + [params[n] for n in _GPT2_PARAMS]
    np_block, torch_block = _np_gpt2_block(seq, d, heads, mlp)
    bytes_moved = 4 * sum(a.size for a in inputs) + 4 * seq * d
    return Workload(f"GPT-2 block seq {seq}", "model", mlir, inputs,
                    _gpt2_flops(seq, d, heads, mlp), bytes_moved, np_block,
                    torch_block)


def gpt2_stack_mlir(seq, layers, d=GPT2_D, heads=GPT2_HEADS, mlp=GPT2_MLP,
                    shared=False):
    """`@main(x, parameters of layer 0, ..., of layer N-1)`: N blocks in a
    row, each with its own parameters (as a real model has), in one
    function: the input of the compile-time workload. With `shared`, every
    layer uses the same 12 parameters (`@main` takes 13 arguments)."""
    T = _gpt2_param_types(d, mlp)
    X = _t((1, seq, d))
    args = ["%x: " + X]
    for layer in range(1 if shared else layers):
        args += ["%%l%d_%s: %s" % (layer, n, _gpt2_arg(n, T[n]))
                 for n in _GPT2_PARAMS]
    body = ""
    x = "x"
    for layer in range(layers):
        out = "y%d" % layer
        prefix = "l%d_" % (0 if shared else layer)
        body += _gpt2_layer_mlir(seq, d, heads, mlp, x, prefix, out)
        x = out
    return (f"func.func @main({', '.join(args)}) -> {X} {{\n" + body +
            f"  return %{x} : {X}\n}}\n")


def gpt2_stack(seq, layers, rng, d=GPT2_D, heads=GPT2_HEADS, mlp=GPT2_MLP):
    """N GPT-2 blocks in a row, each with its own parameters. Its column of
    interest is compile time: identical layers compile to one set of
    kernels."""
    x = _rand(rng, (1, seq, d))
    inputs = [x]
    for _ in range(layers):
        params = _gpt2_params(rng, d, mlp)
        inputs += [params[n] for n in _GPT2_PARAMS]
    np_block, torch_block = _np_gpt2_block(seq, d, heads, mlp)
    n = len(_GPT2_PARAMS)

    def np_stack(x, *params):
        for layer in range(layers):
            x = np_block(x, *params[layer * n:(layer + 1) * n])
        return x

    def torch_stack(torch, x, *params):
        for layer in range(layers):
            x = torch_block(torch, x, *params[layer * n:(layer + 1) * n])
        return x

    bytes_moved = 4 * sum(a.size for a in inputs) + 4 * seq * d
    return Workload(f"GPT-2 stack {layers} blocks seq {seq}", "model",
                    gpt2_stack_mlir(seq, layers, d, heads, mlp), inputs,
                    layers * _gpt2_flops(seq, d, heads, mlp), bytes_moved,
                    np_stack, torch_stack)


def suite(quick, rng):
    """The workloads: the full suite, or a few tiny ones (--quick)."""
    if quick:
        return [matmul(64, 64, 64, rng), linear(8, 32, 48, rng),
                layer_norm(8, 32, rng), softmax(8, 32, rng), gelu(8, 32, rng),
                add(8, 32, rng), attention(1, 2, 16, 16, 8, True, rng),
                gpt2_block(8, rng, d=32, heads=4, mlp=128),
                gpt2_stack(8, 2, rng, d=32, heads=4, mlp=128)]
    seq = 128
    return [
        matmul(256, 256, 256, rng), matmul(512, 512, 512, rng),
        matmul(1000, 1000, 1000, rng), matmul(1024, 1024, 1024, rng),
        matmul(1040, 1040, 1040, rng), matmul(2048, 2048, 2048, rng),
        matmul(seq, GPT2_D, GPT2_MLP, rng), matmul(seq, GPT2_MLP, GPT2_D, rng),
        linear(seq, GPT2_D, 3 * GPT2_D, rng),
        linear(seq, GPT2_D, GPT2_MLP, rng),
        layer_norm(seq, GPT2_D, rng), softmax(GPT2_HEADS * seq, seq, rng),
        gelu(seq, GPT2_MLP, rng), add(seq, GPT2_D, rng),
        gpt2_block(128, rng), gpt2_block(512, rng),
        gpt2_stack(128, 12, rng),
        attention(1, 8, 512, 512, 64, False, rng),
        attention(1, 8, 512, 512, 64, True, rng),
        attention(1, 12, 1024, 1024, 64, False, rng),
        attention(1, 12, 1024, 1024, 64, True, rng),
        attention(1, 1, 4096, 4096, 64, False, rng),
        attention(1, 1, 4096, 4096, 64, True, rng),
        attention(1, 1, 4096, 4096, 64, True, rng, window=256),
        attention(1, 12, 1, 1024, 64, False, rng),
        attention(1, 12, 1, 1024, 64, True, rng),
    ]
