"""The program matrix: every op of the dialect contract, at every rank it
allows, static and dynamic, and mixed with each upstream dialect the contract
names, compiled through --transformer-to-llvm by transformer-run and checked
against float64 numpy (reference_ops.py).

The cases of one group are functions of one module, called in turn by a
generated `@main` that takes every case's inputs and returns every case's
results, so the JIT compiles each group once. When the whole module fails
(a compile error or a failed run-time check), each case is run alone to name
the ones that fail.

Usage: program_matrix.py GROUP WORKDIR [transformer-run flags, e.g. -O0]
       program_matrix.py GROUP --emit        (print the module)
Prints `PASS @case` / `FAIL @case: why` per case and a summary line
`GROUP: N cases, M failed`; exits 1 on any failure.
"""

import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import reference_ops as ref  # noqa: E402
from run_flags import with_default_opt_level  # noqa: E402

RTOL = 1e-4
ATOL = 1e-5
NEG_INF = -np.inf
# Arguments plus results of one generated @main (see chunks()).
MAX_VALUES = 32

# Shapes used for each rank (small: the matrix is about coverage).
SHAPES = {1: (6,), 2: (3, 6), 3: (2, 3, 6), 4: (2, 2, 3, 6)}
BATCH = {2: (), 3: (2,), 4: (2, 3)}


def ttype(shape, dyn=False, elt="f32", keep=()):
    """tensor<...> of `shape`; with `dyn` every dim but those in `keep` is ?."""
    dims = ["?" if dyn and i not in keep else str(d) for i, d in enumerate(shape)]
    return "tensor<%s>" % "x".join(dims + [elt])


def ones_dims(shape):
    return tuple(i for i, d in enumerate(shape) if d == 1)


class Case:
    """One function: inputs [(type, value)], results [(type, expected)],
    `body` uses %a0, %a1, ... and ends with `return`. `helpers` are extra
    functions the body calls."""

    def __init__(self, name, ins, outs, body, helpers=""):
        self.name, self.ins, self.outs = name, ins, outs
        self.body, self.helpers = body.strip("\n"), helpers

    def func(self):
        args = ", ".join("%%a%d: %s" % (i, t) for i, (t, _) in enumerate(self.ins))
        res = ", ".join(t for t, _ in self.outs)
        lines = ["func.func @%s(%s) -> (%s) {" % (self.name, args, res)]
        lines += ["  " + l.strip() for l in self.body.splitlines() if l.strip()]
        lines.append("}")
        return "\n".join(lines) + "\n" + self.helpers


def rand(rng, shape, low=None):
    x = rng.standard_normal(shape).astype(np.float32)
    if low is not None:  # keep away from zero (divisors)
        x = (np.sign(x) + (x == 0)) * (np.abs(x) + low)
    return x.astype(np.float32)


def f32(x):
    return np.asarray(x, dtype=np.float32)


# ---------------------------------------------------------------- groups ---

def group_elementwise(rng):
    cases = []
    unary = {
        "relu": ("transformer.relu %a0", lambda x: np.maximum(ref.f64(x), 0)),
        "gelu": ("transformer.gelu %a0", ref.gelu_tanh),
        "gelu_erf": ('transformer.gelu %a0 {approximate = "none"}', ref.gelu_erf),
        "scale": ("transformer.scale %a0 {factor = 0.125 : f32}", lambda x: ref.f64(x) * 0.125),
    }
    binary = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
    for rank in range(1, 5):
        for dyn in (False, True):
            sfx = "r%d_%s" % (rank, "dyn" if dyn else "static")
            shape = SHAPES[rank]
            t = ttype(shape, dyn)
            for name, (op, fn) in unary.items():
                x = rand(rng, shape) * 2
                cases.append(Case("%s_%s" % (name, sfx), [(t, x)], [(t, fn(x))],
                                  "%%0 = %s : %s -> %s\nreturn %%0 : %s" % (op, t, t, t)))
            for name, fn in binary.items():
                a, b = rand(rng, shape), rand(rng, shape, low=0.5)
                cases.append(Case("%s_%s" % (name, sfx), [(t, a), (t, b)],
                                  [(t, fn(ref.f64(a), ref.f64(b)))],
                                  "%%0 = transformer.%s %%a0, %%a1 : %s, %s -> %s\nreturn %%0 : %s"
                                  % (name, t, t, t, t)))
            # Broadcasting: a lower-rank operand (either side), and static 1s.
            bshapes = []
            if rank >= 2:
                bshapes.append(("trailing", shape, shape[-1:]))
                bshapes.append(("lhs_trailing", shape[-1:], shape))
                bshapes.append(("ones", shape, (1,) + shape[1:-1] + (1,)))
                bshapes.append(("both_ones", (1,) + shape[1:], shape[:-1] + (1,)))
            else:
                bshapes.append(("ones", shape, (1,)))
            for i, (kind, sa, sb) in enumerate(bshapes):
                name = list(binary)[i % 4]
                fn = binary[name]
                a, b = rand(rng, sa), rand(rng, sb, low=0.5)
                ta = ttype(sa, dyn, keep=ones_dims(sa))
                tb = ttype(sb, dyn, keep=ones_dims(sb))
                out = fn(ref.f64(a), ref.f64(b))
                tr = ttype(out.shape, dyn)
                cases.append(Case("%s_bcast_%s_%s" % (name, kind, sfx), [(ta, a), (tb, b)], [(tr, out)],
                                  "%%0 = transformer.%s %%a0, %%a1 : %s, %s -> %s\nreturn %%0 : %s"
                                  % (name, ta, tb, tr, tr)))
            # An unranked intermediate result, refined by shape inference.
            x = rand(rng, shape)
            cases.append(Case("unranked_chain_%s" % sfx, [(t, x)],
                              [(t, ref.gelu_tanh(np.maximum(ref.f64(x), 0)) * 0.5)], """
                %%0 = transformer.relu %%a0 : %s -> tensor<*xf32>
                %%1 = transformer.gelu %%0 : tensor<*xf32> -> tensor<*xf32>
                %%2 = transformer.scale %%1 {factor = 0.5 : f32} : tensor<*xf32> -> %s
                return %%2 : %s""" % (t, t, t)))
    return cases


def masked_input(rng, shape):
    mask = np.where(rng.random(shape) < 0.3, NEG_INF, 0.0).astype(np.float32)
    idx = (0,) * (len(shape) - 1)
    mask[idx] = NEG_INF  # a fully masked row gives zeros
    return mask


def group_normalization(rng):
    cases = []
    for rank in range(1, 5):
        for dyn in (False, True):
            sfx = "r%d_%s" % (rank, "dyn" if dyn else "static")
            shape = SHAPES[rank]
            t = ttype(shape, dyn)
            x = rand(rng, shape) * 3
            cases.append(Case("softmax_" + sfx, [(t, x)], [(t, ref.softmax(x))],
                              "%%0 = transformer.softmax %%a0 : %s -> %s\nreturn %%0 : %s" % (t, t, t)))
            d = shape[-1]
            td = ttype((d,), dyn)
            g, b = rand(rng, (d,)), rand(rng, (d,))
            cases.append(Case("layer_norm_" + sfx, [(t, x), (td, g), (td, b)],
                              [(t, ref.layer_norm(x, g, b))],
                              "%%0 = transformer.layer_norm %%a0, %%a1, %%a2 : %s, %s, %s -> %s\nreturn %%0 : %s"
                              % (t, td, td, t, t)))
            cases.append(Case("layer_norm_eps_" + sfx, [(t, x), (td, g), (td, b)],
                              [(t, ref.layer_norm(x, g, b, eps=0.5))],
                              "%%0 = transformer.layer_norm %%a0, %%a1, %%a2 {epsilon = 0.5 : f32} : %s, %s, %s -> %s\n"
                              "return %%0 : %s" % (t, td, td, t, t)))
            if rank < 2:
                continue
            m = masked_input(rng, shape)
            cases.append(Case("masked_softmax_" + sfx, [(t, x), (t, m)], [(t, ref.masked_softmax(x, m))],
                              "%%0 = transformer.masked_softmax %%a0, %%a1 : %s, %s -> %s\nreturn %%0 : %s"
                              % (t, t, t, t)))
            m2 = masked_input(rng, shape[-2:])
            tm = ttype(m2.shape, dyn)
            cases.append(Case("masked_softmax_bcast_" + sfx, [(t, x), (tm, m2)],
                              [(t, ref.masked_softmax(x, m2))],
                              "%%0 = transformer.masked_softmax %%a0, %%a1 : %s, %s -> %s\nreturn %%0 : %s"
                              % (t, tm, t, t)))
    return cases


def group_matmul(rng):
    cases = []
    for rank in range(1, 5):
        for dyn in (False, True):
            sfx = "r%d_%s" % (rank, "dyn" if dyn else "static")
            # linear allows rank 1.
            xs = SHAPES[rank][:-1] + (4,)
            x, w, b = rand(rng, xs), rand(rng, (5, 4)), rand(rng, (5,))
            tx, tw, tb = ttype(xs, dyn), ttype((5, 4), dyn), ttype((5,), dyn)
            out = ref.linear(x, w, b)
            to = ttype(out.shape, dyn)
            cases.append(Case("linear_" + sfx, [(tx, x), (tw, w), (tb, b)], [(to, out)],
                              "%%0 = transformer.linear %%a0, %%a1, %%a2 : %s, %s, %s -> %s\nreturn %%0 : %s"
                              % (tx, tw, tb, to, to)))
            if rank < 2:
                continue
            bt = BATCH[rank]
            variants = [("", bt + (3, 4), bt + (4, 5), False),
                        ("_tb", bt + (3, 4), bt + (5, 4), True)]
            if rank > 2:
                variants += [("_bcast", bt + (3, 4), (4, 5), False),
                             ("_bcast_tb", bt + (3, 4), (5, 4), True)]
            for vname, sa, sb, tbf in variants:
                a, bb = rand(rng, sa), rand(rng, sb)
                out = ref.matmul(a, bb, transpose_b=tbf)
                ta, tbb, to = ttype(sa, dyn), ttype(sb, dyn), ttype(out.shape, dyn)
                attr = " {transpose_b}" if tbf else ""
                cases.append(Case("matmul%s_%s" % (vname, sfx), [(ta, a), (tbb, bb)], [(to, out)],
                                  "%%0 = transformer.matmul %%a0, %%a1%s : %s, %s -> %s\nreturn %%0 : %s"
                                  % (attr, ta, tbb, to, to)))
            s = bt + (3, 4)
            x = rand(rng, s)
            perms = [None, list(range(rank))[::-1]]
            if rank == 3:
                perms.append([1, 0, 2])
            if rank == 4:
                perms += [[0, 2, 1, 3], [3, 1, 0, 2]]
            for i, perm in enumerate(perms):
                if perm is None:
                    out = np.swapaxes(ref.f64(x), -1, -2)
                    attr = ""
                else:
                    out = np.transpose(ref.f64(x), perm)
                    attr = " {permutation = array<i64: %s>}" % ", ".join(map(str, perm))
                tx, to = ttype(s, dyn), ttype(out.shape, dyn)
                cases.append(Case("transpose%d_%s" % (i, sfx), [(tx, x)], [(to, out)],
                                  "%%0 = transformer.transpose %%a0%s : %s -> %s\nreturn %%0 : %s"
                                  % (attr, tx, to, to)))
    # Rows over more than one cache tile (258 with AVX-512): B is copied once
    # per call into the register tiles' panels; n not a multiple of the
    # panel width (a last panel completed with zeros), k not a multiple of
    # 8 (smaller copy tasks), B transposed (k a multiple of the lanes or not),
    # A's rows 8 KiB apart (read from a copy with padded rows).
    for name, m, n, k, tbf in (("packed", 300, 64, 40, False),
                               ("packed_partial", 300, 40, 20, False),
                               ("packed_odd_k", 270, 33, 7, False),
                               ("packed_tb", 300, 64, 48, True),
                               ("packed_tb_partial", 300, 40, 32, True),
                               ("packed_tb_odd_k", 300, 64, 20, True),
                               ("packed_padded_rows", 264, 32, 2048, False)):
        a, bb = rand(rng, (m, k)), rand(rng, (n, k) if tbf else (k, n))
        # Long sums in f32 round to about sqrt(k) ulps of their terms:
        # scaled to keep that within the absolute tolerance.
        scale = np.float32(1.0 / np.sqrt(k))
        a, bb = a * scale, bb * scale
        out = ref.matmul(a, bb, transpose_b=tbf)
        ta, tbb, to = ttype(a.shape), ttype(bb.shape), ttype(out.shape)
        attr = " {transpose_b}" if tbf else ""
        cases.append(Case("matmul_" + name, [(ta, a), (tbb, bb)], [(to, out)],
                          "%%0 = transformer.matmul %%a0, %%a1%s : %s, %s -> %s\nreturn %%0 : %s"
                          % (attr, ta, tbb, to, to)))
    x, w, bias = rand(rng, (300, 32)), rand(rng, (40, 32)), rand(rng, (40,))
    out = ref.linear(x, w, bias)
    tx, tw, tb, to = ttype(x.shape), ttype(w.shape), ttype(bias.shape), ttype(out.shape)
    cases.append(Case("linear_packed", [(tx, x), (tw, w), (tb, bias)], [(to, out)],
                      "%%0 = transformer.linear %%a0, %%a1, %%a2 : %s, %s, %s -> %s\nreturn %%0 : %s"
                      % (tx, tw, tb, to, to)))
    return cases


def group_attention(rng):
    cases = []
    for rank in range(2, 5):
        bt = BATCH[rank]
        # create_causal_mask has a static shape by definition.
        for sq, sk in ((4, 4), (3, 5), (5, 3)):
            shape = bt + (sq, sk)
            t = ttype(shape)
            out = np.broadcast_to(ref.causal_mask(sq, sk), shape)
            cases.append(Case("causal_mask_%dx%d_r%d" % (sq, sk, rank), [], [(t, out)],
                              "%%0 = transformer.create_causal_mask : %s\nreturn %%0 : %s" % (t, t)))
        for dyn in (False, True):
            sfx = "r%d_%s" % (rank, "dyn" if dyn else "static")
            for sq, sk in ((3, 5), (4, 4), (5, 3)):
                q = rand(rng, bt + (sq, 4))
                k = rand(rng, bt + (sk, 4))
                v = rand(rng, bt + (sk, 6))
                tq, tk, tv = ttype(q.shape, dyn), ttype(k.shape, dyn), ttype(v.shape, dyn)
                to = ttype(bt + (sq, 6), dyn)
                sig = "%s, %s, %s -> %s" % (tq, tk, tv, to)
                ins = [(tq, q), (tk, k), (tv, v)]
                tag = "%s_%dx%d" % (sfx, sq, sk)
                cases.append(Case("attention_" + tag, ins, [(to, ref.attention(q, k, v))],
                                  "%%0 = transformer.attention %%a0, %%a1, %%a2 : %s\nreturn %%0 : %s" % (sig, to)))
                cases.append(Case("attention_causal_" + tag, ins, [(to, ref.attention(q, k, v, causal=True))],
                                  "%%0 = transformer.attention %%a0, %%a1, %%a2 {causal} : %s\nreturn %%0 : %s"
                                  % (sig, to)))
                cases.append(Case("attention_scale_" + tag, ins, [(to, ref.attention(q, k, v, scale=0.3))],
                                  "%%0 = transformer.attention %%a0, %%a1, %%a2 {scale = 0.3 : f32} : %s\n"
                                  "return %%0 : %s" % (sig, to)))
                m = masked_input(rng, (sq, sk))
                tm = ttype(m.shape, dyn)
                cases.append(Case("attention_mask_causal_" + tag, ins + [(tm, m)],
                                  [(to, ref.attention(q, k, v, causal=True, mask=m))],
                                  "%%0 = transformer.attention %%a0, %%a1, %%a2 mask(%%a3 : %s) {causal} : %s\n"
                                  "return %%0 : %s" % (tm, sig, to)))
    return cases


def group_embedding_rope(rng):
    cases = []
    for rank in range(1, 4):
        for dyn in (False, True):
            sfx = "r%d_%s" % (rank + 1, "dyn" if dyn else "static")
            shape = SHAPES[rank][:-1] + (5,)
            for elt, dtype in (("i32", np.int32), ("i64", np.int64)):
                ids = rng.integers(0, 10, shape).astype(dtype)
                table = rand(rng, (10, 4))
                out = ref.embedding(ids, table)
                ti, tt, to = ttype(shape, dyn, elt), ttype((10, 4), dyn), ttype(out.shape, dyn)
                cases.append(Case("embedding_%s_%s" % (elt, sfx), [(ti, ids), (tt, table)], [(to, out)],
                                  "%%0 = transformer.embedding %%a0, %%a1 : %s, %s -> %s\nreturn %%0 : %s"
                                  % (ti, tt, to, to)))
    for rank in range(2, 5):
        for dyn in (False, True):
            sfx = "r%d_%s" % (rank, "dyn" if dyn else "static")
            shape = BATCH[rank] + (3, 8)
            x = rand(rng, shape)
            t = ttype(shape, dyn)
            cases.append(Case("rope_" + sfx, [(t, x)], [(t, ref.rope(x))],
                              "%%0 = transformer.rope %%a0 : %s -> %s\nreturn %%0 : %s" % (t, t, t)))
            cases.append(Case("rope_at_" + sfx, [(t, x), ("index", ("index", 7))], [(t, ref.rope(x, 7, 500.0))],
                              "%%0 = transformer.rope %%a0 at %%a1 {base = 500.0 : f32} : %s -> %s\nreturn %%0 : %s"
                              % (t, t, t)))
    return cases


def group_upstream(rng):
    """Each upstream op family the contract names, mixed with transformer ops."""
    cases = []
    for dyn in (False, True):
        sfx = "dyn" if dyn else "static"

        def T(shape, elt="f32", keep=()):
            return ttype(shape, dyn, elt, keep)

        # tensor.expand_shape / collapse_shape: split heads, attend, merge.
        x = rand(rng, (4, 8))
        heads = ref.f64(x).reshape(4, 2, 4).transpose(1, 0, 2)
        att = ref.attention(heads, heads, heads, causal=True).transpose(1, 0, 2).reshape(4, 8)
        if dyn:
            prologue = "%c0 = arith.constant 0 : index\n%s = tensor.dim %a0, %c0 : tensor<?x8xf32>"
            h, t3, m = "tensor<?x2x4xf32>", "tensor<2x?x4xf32>", "tensor<?x8xf32>"
            expand = "output_shape [%s, 2, 4]"
        else:
            prologue, h, t3, m = "", "tensor<4x2x4xf32>", "tensor<2x4x4xf32>", "tensor<4x8xf32>"
            expand = "output_shape [4, 2, 4]"
        cases.append(Case("split_heads_" + sfx, [(m, x)], [(m, att)], """
            %s
            %%h = tensor.expand_shape %%a0 [[0], [1, 2]] %s : %s into %s
            %%t = transformer.transpose %%h {permutation = array<i64: 1, 0, 2>} : %s -> %s
            %%o = transformer.attention %%t, %%t, %%t {causal} : %s, %s, %s -> %s
            %%b = transformer.transpose %%o {permutation = array<i64: 1, 0, 2>} : %s -> %s
            %%m = tensor.collapse_shape %%b [[0], [1, 2]] : %s into %s
            return %%m : %s""" % (prologue, expand, m, h, h, t3, t3, t3, t3, t3, t3, h, h, m, m)))

        # tensor.extract_slice at dynamic offsets (a column block) + softmax.
        x = rand(rng, (4, 8))
        cases.append(Case("extract_slice_softmax_" + sfx, [(T((4, 8)), x), ("index", ("index", 2)), ("index", ("index", 3))],
                          [(T((2, 3), keep=(0, 1)), ref.softmax(x[2:4, 3:6]))], """
            %%s = tensor.extract_slice %%a0[%%a1, %%a2] [2, 3] [1, 1] : %s to tensor<2x3xf32>
            %%0 = transformer.softmax %%s : tensor<2x3xf32> -> tensor<2x3xf32>
            return %%0 : tensor<2x3xf32>""" % T((4, 8))))
        # Strided slice (every other column), then gelu.
        cases.append(Case("extract_slice_strided_" + sfx, [(T((4, 8)), x)],
                          [(T((4, 4), keep=(0, 1)), ref.gelu_tanh(x[:, 1::2]))], """
            %%s = tensor.extract_slice %%a0[0, 1] [4, 4] [1, 2] : %s to tensor<4x4xf32>
            %%0 = transformer.gelu %%s : tensor<4x4xf32> -> tensor<4x4xf32>
            return %%0 : tensor<4x4xf32>""" % T((4, 8))))

        # tensor.insert_slice: write one step of keys into a KV cache row and a
        # column block, at a dynamic position.
        cache = rand(rng, (2, 6, 4))
        k = rand(rng, (2, 1, 4))
        want = ref.f64(cache).copy()
        want[:, 3:4, :] = ref.f64(k) * 2
        ts, td = T((2, 1, 4), keep=(1,)), T((2, 6, 4))
        if dyn:
            sizes = """%c0 = arith.constant 0 : index
            %c2 = arith.constant 2 : index
            %n = tensor.dim %a0, %c0 : tensor<?x?x?xf32>
            %w = tensor.dim %a0, %c2 : tensor<?x?x?xf32>"""
            sz = "[%n, 1, %w]"
        else:
            sizes, sz = "", "[2, 1, 4]"
        cases.append(Case("insert_slice_kv_" + sfx, [(td, cache), (ts, k), ("index", ("index", 3))],
                          [(td, want)], """
            %%d = transformer.scale %%a1 {factor = 2.0 : f32} : %s -> %s
            %s
            %%0 = tensor.insert_slice %%d into %%a0[0, %%a2, 0] %s [1, 1, 1] : %s into %s
            return %%0 : %s""" % (ts, ts, sizes, sz, ts, td, td)))
        a = rand(rng, (4, 8))
        kk = rand(rng, (4, 2))
        want = ref.f64(a).copy()
        want[:, 5:7] = np.maximum(ref.f64(kk), 0)
        cases.append(Case("insert_slice_column_" + sfx, [(T((4, 8)), a), (T((4, 2), keep=(1,)), kk)],
                          [(T((4, 8)), want)], """
            %%r = transformer.relu %%a1 : %s -> %s
            %%c = tensor.cast %%r : %s to tensor<4x2xf32>
            %%0 = tensor.insert_slice %%c into %%a0[0, 5] [4, 2] [1, 1] : tensor<4x2xf32> into %s
            return %%0 : %s""" % (T((4, 2), keep=(1,)), T((4, 2), keep=(1,)), T((4, 2), keep=(1,)), T((4, 8)), T((4, 8)))))

        # tensor.concat of transformer results (rows, then columns).
        a, b = rand(rng, (2, 5)), rand(rng, (3, 5))
        cases.append(Case("concat_" + sfx, [(T((2, 5)), a), (T((3, 5)), b)],
                          [(T((5, 10)), np.concatenate([np.concatenate([ref.softmax(a), ref.gelu_tanh(b)], 0)] * 2, 1))], """
            %%0 = transformer.softmax %%a0 : %s -> %s
            %%1 = transformer.gelu %%a1 : %s -> %s
            %%2 = tensor.concat dim(0) %%0, %%1 : (%s, %s) -> %s
            %%3 = tensor.concat dim(1) %%2, %%2 : (%s, %s) -> %s
            return %%3 : %s""" % (T((2, 5)), T((2, 5)), T((3, 5)), T((3, 5)), T((2, 5)), T((3, 5)), T((5, 5)),
                                  T((5, 5)), T((5, 5)), T((5, 10)), T((5, 10)))))

        # tensor.pad with -inf: softmax over a padded row ignores the padding.
        x = rand(rng, (3, 5))
        padded = np.concatenate([ref.f64(x), np.full((3, 3), NEG_INF)], 1)
        cases.append(Case("pad_softmax_" + sfx, [(T((3, 5)), x)], [(T((3, 8), keep=(1,)), ref.softmax(padded))], """
            %%ninf = arith.constant 0xFF800000 : f32
            %%p = tensor.pad %%a0 low[0, 0] high[0, 3] {
            ^bb0(%%i: index, %%j: index):
              tensor.yield %%ninf : f32
            } : %s to %s
            %%0 = transformer.softmax %%p : %s -> %s
            return %%0 : %s""" % (T((3, 5)), T((3, 8), keep=(1,)), T((3, 8), keep=(1,)), T((3, 8), keep=(1,)),
                                  T((3, 8), keep=(1,)))))

        # tensor.empty / tensor.dim / tensor.cast / tensor.extract /
        # tensor.from_elements / tensor.splat around transformer ops.
        x = rand(rng, (3, 4))
        cases.append(Case("tensor_misc_" + sfx, [(T((3, 4)), x)],
                          [(T((3, 4)), ref.f64(x) * float(np.float32(x[1, 2]) * 2)), ("tensor<2xf32>", np.array([x[0, 0], x[2, 3]]))], """
            %%c0 = arith.constant 0 : index
            %%c1 = arith.constant 1 : index
            %%c2 = arith.constant 2 : index
            %%c3 = arith.constant 3 : index
            %%e = tensor.extract %%a0[%%c1, %%c2] : %s
            %%two = arith.constant 2.0 : f32
            %%f = arith.mulf %%e, %%two : f32
            %%s = tensor.splat %%f : tensor<3x4xf32>
            %%sc = tensor.cast %%s : tensor<3x4xf32> to %s
            %%0 = transformer.mul %%a0, %%sc : %s, %s -> %s
            %%x0 = tensor.extract %%a0[%%c0, %%c0] : %s
            %%x1 = tensor.extract %%a0[%%c2, %%c3] : %s
            %%fe = tensor.from_elements %%x0, %%x1 : tensor<2xf32>
            return %%0, %%fe : %s, tensor<2xf32>""" % ((T((3, 4)),) * 8)))

        # linalg named ops and linalg.generic mixed with transformer ops.
        a, b, bias = rand(rng, (3, 4)), rand(rng, (4, 5)), rand(rng, (5,))
        mm = ref.f64(a) @ ref.f64(b)
        sq = ref.softmax(mm ** 2 + ref.f64(bias))
        cases.append(Case("linalg_mix_" + sfx, [(T((3, 4)), a), (T((4, 5)), b), (T((5,)), bias)],
                          [(T((3, 5)), sq), (T((5, 3)), sq.T), (T((3,)), sq.sum(-1))], """
            %%c0 = arith.constant 0 : index
            %%c1 = arith.constant 1 : index
            %%m = tensor.dim %%a0, %%c0 : %s
            %%n = tensor.dim %%a1, %%c1 : %s
            %%zero = arith.constant 0.0 : f32
            %%e = tensor.empty(%s) : %s
            %%z = linalg.fill ins(%%zero : f32) outs(%%e : %s) -> %s
            %%mm = linalg.matmul ins(%%a0, %%a1 : %s, %s) outs(%%z : %s) -> %s
            %%e2 = tensor.empty(%s) : %s
            %%sq = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                                   iterator_types = ["parallel", "parallel"]}
                ins(%%mm : %s) outs(%%e2 : %s) {
              ^bb0(%%in: f32, %%out: f32):
                %%p = arith.mulf %%in, %%in : f32
                linalg.yield %%p : f32
            } -> %s
            %%b = transformer.add %%sq, %%a2 : %s, %s -> %s
            %%s = transformer.softmax %%b : %s -> %s
            %%et = tensor.empty(%s) : %s
            %%t = linalg.transpose ins(%%s : %s) outs(%%et : %s) permutation = [1, 0]
            %%er = tensor.empty(%s) : %s
            %%r0 = linalg.fill ins(%%zero : f32) outs(%%er : %s) -> %s
            %%r = linalg.reduce ins(%%s : %s) outs(%%r0 : %s) dimensions = [1]
              (%%in: f32, %%acc: f32) {
                %%sum = arith.addf %%in, %%acc : f32
                linalg.yield %%sum : f32
              }
            return %%s, %%t, %%r : %s, %s, %s""" % (
            T((3, 4)), T((4, 5)),
            "%m, %n" if dyn else "", T((3, 5)), T((3, 5)), T((3, 5)),
            T((3, 4)), T((4, 5)), T((3, 5)), T((3, 5)),
            "%m, %n" if dyn else "", T((3, 5)), T((3, 5)), T((3, 5)), T((3, 5)),
            T((3, 5)), T((5,)), T((3, 5)), T((3, 5)), T((3, 5)),
            "%n, %m" if dyn else "", T((5, 3)), T((3, 5)), T((5, 3)),
            "%m" if dyn else "", T((3,)), T((3,)), T((3,)), T((3, 5)), T((3,)),
            T((3, 5)), T((5, 3)), T((3,)))))

        # scf.for: a decode-style loop whose carried tensor goes through
        # transformer ops; scf.if choosing between two transformer results.
        x = rand(rng, (2, 4)) * 0.5
        w = rand(rng, (4, 4)) * 0.5
        y = ref.f64(x)
        for _ in range(3):
            y = ref.gelu_tanh(y @ ref.f64(w)) + ref.f64(x)
        cases.append(Case("scf_for_" + sfx, [(T((2, 4)), x), (T((4, 4)), w), ("index", ("index", 3))], [(T((2, 4)), y)], """
            %%c0 = arith.constant 0 : index
            %%c1 = arith.constant 1 : index
            %%r = scf.for %%i = %%c0 to %%a2 step %%c1 iter_args(%%h = %%a0) -> (%s) {
              %%m = transformer.matmul %%h, %%a1 : %s, %s -> %s
              %%g = transformer.gelu %%m : %s -> %s
              %%n = transformer.add %%g, %%a0 : %s, %s -> %s
              scf.yield %%n : %s
            }
            return %%r : %s""" % ((T((2, 4)),) + (T((2, 4)), T((4, 4)), T((2, 4))) + (T((2, 4)),) * 7)))
        for flag in (0, 1):
            x = rand(rng, (3, 4))
            want = ref.softmax(x) if flag else np.maximum(ref.f64(x), 0)
            cases.append(Case("scf_if%d_%s" % (flag, sfx), [(T((3, 4)), x), ("index", ("index", flag))], [(T((3, 4)), want)], """
                %%c0 = arith.constant 0 : index
                %%cond = arith.cmpi ne, %%a1, %%c0 : index
                %%r = scf.if %%cond -> (%s) {
                  %%s = transformer.softmax %%a0 : %s -> %s
                  scf.yield %%s : %s
                } else {
                  %%s = transformer.relu %%a0 : %s -> %s
                  scf.yield %%s : %s
                }
                return %%r : %s""" % ((T((3, 4)),) * 8)))

        # arith and math on tensors and on scalars.
        a, b = rand(rng, (4, 8)), rand(rng, (4, 8))
        s1 = ref.softmax(ref.f64(a))
        want = np.tanh(np.exp(s1) * ref.f64(b) + np.maximum(s1, ref.f64(b)))
        cases.append(Case("arith_math_tensors_" + sfx, [(T((4, 8)), a), (T((4, 8)), b), ("f32", ("f32", 1.5))],
                          [(T((4, 8)), want), ("tensor<f32>", np.float64(np.float32(1.5)) * 2 + 1)], """
            %%s = transformer.softmax %%a0 : %s -> %s
            %%e = math.exp %%s : %s
            %%m = arith.mulf %%e, %%a1 : %s
            %%x = arith.maximumf %%s, %%a1 : %s
            %%y = arith.addf %%m, %%x : %s
            %%t = math.tanh %%y : %s
            %%one = arith.constant 1.0 : f32
            %%two = arith.constant 2.0 : f32
            %%p = arith.mulf %%a2, %%two : f32
            %%q = arith.addf %%p, %%one : f32
            %%z = tensor.from_elements %%q : tensor<f32>
            return %%t, %%z : %s, tensor<f32>""" % ((T((4, 8)),) * 8)))

        # bufferization.alloc_tensor and materialize_in_destination.
        x = rand(rng, (3, 4))
        want = np.zeros((5, 4))
        want[1:4] = ref.gelu_tanh(x)
        cases.append(Case("bufferization_" + sfx, [(T((3, 4)), x)], [(T((5, 4), keep=(0,)), want), (T((3, 4)), ref.gelu_tanh(x))], """
            %%c0 = arith.constant 0 : index
            %%c1 = arith.constant 1 : index
            %%zero = arith.constant 0.0 : f32
            %%n = tensor.dim %%a0, %%c1 : %s
            %%g = transformer.gelu %%a0 : %s -> %s
            %%buf = bufferization.alloc_tensor(%s) : %s
            %%z = linalg.fill ins(%%zero : f32) outs(%%buf : %s) -> %s
            %%m = tensor.dim %%a0, %%c0 : %s
            %%i = tensor.insert_slice %%g into %%z[1, 0] [%%m, %%n] [1, 1] : %s into %s
            %%dest = bufferization.alloc_tensor(%s) : %s
            %%out = bufferization.materialize_in_destination %%g in %%dest : (%s, %s) -> %s
            return %%i, %%out : %s, %s""" % (
            T((3, 4)), T((3, 4)), T((3, 4)),
            "%n" if dyn else "", T((5, 4), keep=(0,)), T((5, 4), keep=(0,)), T((5, 4), keep=(0,)),
            T((3, 4)), T((3, 4)), T((5, 4), keep=(0,)),
            "%m, %n" if dyn else "", T((3, 4)), T((3, 4)), T((3, 4)), T((3, 4)),
            T((5, 4), keep=(0,)), T((3, 4)))))
        if not dyn:
            cases[-1].body = cases[-1].body.replace("[%m, %n] [1, 1]", "[3, 4] [1, 1]")

        # func.call: a helper (one pre-norm MLP block) called twice.
        x = rand(rng, (3, 4))
        w1, b1 = rand(rng, (8, 4)), rand(rng, (8,))
        w2, b2 = rand(rng, (4, 8)), rand(rng, (4,))
        g, be = rand(rng, (4,)), rand(rng, (4,))

        def block(h):
            n = ref.layer_norm(h, g, be)
            return ref.f64(h) + ref.linear(ref.gelu_tanh(ref.linear(n, w1, b1)), w2, b2)
        want = block(block(x))
        tx, tw1, tb1, tw2, tb2, tg = T((3, 4)), T((8, 4)), T((8,)), T((4, 8)), T((4,)), T((4,))
        sig = "%s, %s, %s, %s, %s, %s, %s" % (tx, tw1, tb1, tw2, tb2, tg, tg)
        helper = """func.func private @mlp_block_%s(%%x: %s, %%w1: %s, %%b1: %s, %%w2: %s, %%b2: %s, %%g: %s, %%be: %s) -> %s {
  %%n = transformer.layer_norm %%x, %%g, %%be : %s, %s, %s -> %s
  %%h = transformer.linear %%n, %%w1, %%b1 : %s, %s, %s -> %s
  %%a = transformer.gelu %%h : %s -> %s
  %%o = transformer.linear %%a, %%w2, %%b2 : %s, %s, %s -> %s
  %%r = transformer.add %%x, %%o : %s, %s -> %s
  return %%r : %s
}
""" % (sfx, tx, tw1, tb1, tw2, tb2, tg, tg, tx, tx, tg, tg, tx, tx, tw1, tb1, T((3, 8)),
       T((3, 8)), T((3, 8)), T((3, 8)), tw2, tb2, tx, tx, tx, tx, tx)
        cases.append(Case("func_call_" + sfx, [(tx, x), (tw1, w1), (tb1, b1), (tw2, w2), (tb2, b2), (tg, g), (tg, be)],
                          [(tx, want)], """
            %%0 = func.call @mlp_block_%s(%%a0, %%a1, %%a2, %%a3, %%a4, %%a5, %%a6) : (%s) -> %s
            %%1 = func.call @mlp_block_%s(%%0, %%a1, %%a2, %%a3, %%a4, %%a5, %%a6) : (%s) -> %s
            return %%1 : %s""" % (sfx, sig, tx, sfx, sig, tx, tx), helper))
    return cases


def op_specs(rng):
    """(name, [(shape, dtype)], op text with {t0}, {t1}.. for operand types
    and {r} for the result type, reference on the inputs, result shape)."""
    x34, x236 = rand(rng, (3, 6)), rand(rng, (2, 3, 6))
    d6 = [rand(rng, (6,)), rand(rng, (6,))]
    mask = masked_input(rng, (3, 6))
    q, k, v = rand(rng, (2, 3, 4)), rand(rng, (2, 5, 4)), rand(rng, (2, 5, 6))
    ids = rng.integers(0, 10, (2, 3)).astype(np.int32)
    table = rand(rng, (10, 4))
    b = rand(rng, (2, 6, 5))
    w, bias = rand(rng, (5, 6)), rand(rng, (5,))
    return [
        ("add", [x34, rand(rng, (6,))], "transformer.add %a0, %a1 : {t0}, {t1} -> {r}", lambda a, c: ref.f64(a) + c),
        ("div", [x34, rand(rng, (3, 6), low=0.5)], "transformer.div %a0, %a1 : {t0}, {t1} -> {r}", lambda a, c: ref.f64(a) / c),
        ("relu", [x34], "transformer.relu %a0 : {t0} -> {r}", lambda a: np.maximum(ref.f64(a), 0)),
        ("gelu", [x34], "transformer.gelu %a0 : {t0} -> {r}", ref.gelu_tanh),
        ("scale", [x34], "transformer.scale %a0 {{factor = 3.0 : f32}} : {t0} -> {r}", lambda a: ref.f64(a) * 3),
        ("softmax", [x236], "transformer.softmax %a0 : {t0} -> {r}", ref.softmax),
        ("masked_softmax", [x34, mask], "transformer.masked_softmax %a0, %a1 : {t0}, {t1} -> {r}", ref.masked_softmax),
        ("layer_norm", [x236] + d6, "transformer.layer_norm %a0, %a1, %a2 : {t0}, {t1}, {t2} -> {r}", ref.layer_norm),
        ("matmul", [x236, b], "transformer.matmul %a0, %a1 : {t0}, {t1} -> {r}", ref.matmul),
        ("transpose", [x236], "transformer.transpose %a0 : {t0} -> {r}", lambda a: np.swapaxes(ref.f64(a), -1, -2)),
        ("linear", [x236, w, bias], "transformer.linear %a0, %a1, %a2 : {t0}, {t1}, {t2} -> {r}", ref.linear),
        ("attention", [q, k, v], "transformer.attention %a0, %a1, %a2 {{causal}} : {t0}, {t1}, {t2} -> {r}",
         lambda a, c, d: ref.attention(a, c, d, causal=True)),
        ("embedding", [ids, table], "transformer.embedding %a0, %a1 : {t0}, {t1} -> {r}", ref.embedding),
        ("rope", [x236], "transformer.rope %a0 : {t0} -> {r}", ref.rope),
    ]


def group_mixed(rng):
    """Every op with dynamic operands and a static result, static operands
    and a dynamic result, a partly dynamic result, and an unranked result
    that shape inference refines (used by a tensor.cast, another dialect)."""
    cases = []
    for name, inputs, text, fn in op_specs(rng):
        want = fn(*inputs)
        elts = ["i32" if x.dtype == np.int32 else "f32" for x in inputs]
        static = [ttype(x.shape, False, e) for x, e in zip(inputs, elts)]
        dynamic = [ttype(x.shape, True, e) for x, e in zip(inputs, elts)]
        rs, rd = ttype(want.shape), ttype(want.shape, True)
        rp = ttype(want.shape, True, keep=(len(want.shape) - 1,))
        for vname, ts, r in (("dyn_to_static", dynamic, rs), ("static_to_dyn", static, rd),
                             ("dyn_to_partial", dynamic, rp)):
            op = text.format(r=r, **{"t%d" % i: t for i, t in enumerate(ts)})
            cases.append(Case("%s_%s" % (name, vname), list(zip(ts, inputs)), [(r, want)],
                              "%%0 = %s\nreturn %%0 : %s" % (op, r)))
        op = text.format(r="tensor<*xf32>", **{"t%d" % i: t for i, t in enumerate(static)})
        cases.append(Case("%s_unranked" % name, list(zip(static, inputs)), [(rs, want)],
                          "%%0 = %s\n%%1 = tensor.cast %%0 : tensor<*xf32> to %s\nreturn %%1 : %s"
                          % (op, rs, rs)))
    return cases


def group_upstream_more(rng):
    """More upstream ops around transformer ops: linalg named ops the
    lowering does not produce itself (softmax, batch_matmul, elementwise,
    map, broadcast, copy), arith/math ops on tensors of every kind, tensor
    constants, scf.while/forall, tensor.generate/reshape/insert, and results
    that alias each other, an argument or a constant."""
    cases = []
    x = rand(rng, (3, 4))
    cases.append(Case("linalg_softmax", [("tensor<3x4xf32>", x)], [("tensor<3x4xf32>", np.maximum(ref.softmax(x) - 0.25, 0))], """
        %e = tensor.empty() : tensor<3x4xf32>
        %0 = linalg.softmax dimension(1) ins(%a0 : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
        %q = arith.constant dense<0.25> : tensor<3x4xf32>
        %1 = transformer.sub %0, %q : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
        %2 = transformer.relu %1 : tensor<3x4xf32> -> tensor<3x4xf32>
        return %2 : tensor<3x4xf32>"""))
    xd = rand(rng, (2, 5))
    cases.append(Case("linalg_softmax_dyn", [("tensor<?x?xf32>", xd)], [("tensor<?x?xf32>", ref.softmax(ref.gelu_tanh(xd)))], """
        %g = transformer.gelu %a0 : tensor<?x?xf32> -> tensor<?x?xf32>
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %m = tensor.dim %a0, %c0 : tensor<?x?xf32>
        %n = tensor.dim %a0, %c1 : tensor<?x?xf32>
        %e = tensor.empty(%m, %n) : tensor<?x?xf32>
        %0 = linalg.softmax dimension(1) ins(%g : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
        return %0 : tensor<?x?xf32>"""))
    y = rand(rng, (2, 4, 5))
    ex = np.exp(ref.f64(x))
    bm = np.broadcast_to(ex, (2, 3, 4)) @ ref.f64(y)
    cases.append(Case("linalg_named", [("tensor<3x4xf32>", x), ("tensor<2x4x5xf32>", y)],
                      [("tensor<3x4xf32>", [math_erf(x)][0]), ("tensor<2x3x5xf32>", ref.softmax(bm)), ("tensor<3x4xf32>", x)], """
        %e = tensor.empty() : tensor<3x4xf32>
        %0 = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%a0 : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
        %b = tensor.empty() : tensor<2x3x4xf32>
        %1 = linalg.broadcast ins(%0 : tensor<3x4xf32>) outs(%b : tensor<2x3x4xf32>) dimensions = [0]
        %z = tensor.empty() : tensor<2x3x5xf32>
        %c0 = arith.constant 0.0 : f32
        %zf = linalg.fill ins(%c0 : f32) outs(%z : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
        %2 = linalg.batch_matmul ins(%1, %a1 : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%zf : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
        %3 = transformer.softmax %2 : tensor<2x3x5xf32> -> tensor<2x3x5xf32>
        %e2 = tensor.empty() : tensor<3x4xf32>
        %m = linalg.map { math.erf } ins(%a0 : tensor<3x4xf32>) outs(%e2 : tensor<3x4xf32>)
        %e3 = tensor.empty() : tensor<3x4xf32>
        %k = linalg.copy ins(%a0 : tensor<3x4xf32>) outs(%e3 : tensor<3x4xf32>) -> tensor<3x4xf32>
        return %m, %3, %k : tensor<3x4xf32>, tensor<2x3x5xf32>, tensor<3x4xf32>"""))
    ids = rng.integers(1, 4, (3, 4)).astype(np.int32)
    sel = np.where(ref.f64(x) > 0, ref.f64(x), -ref.f64(x))
    cases.append(Case("arith_math_kinds", [("tensor<3x4xf32>", x), ("tensor<3x4xi32>", ids)],
                      [("tensor<3x4xf32>", sel ** ids), ("tensor<3x4xf32>", 1 / np.sqrt(sel) + np.log1p(sel)),
                       ("tensor<3x4xf32>", math_erf(x) * 2), ("tensor<3x4xi32>", ids * 3 - 1)], """
        %c0 = arith.constant 0.0 : f32
        %zero = tensor.splat %c0 : tensor<3x4xf32>
        %cmp = arith.cmpf ogt, %a0, %zero : tensor<3x4xf32>
        %neg = arith.negf %a0 : tensor<3x4xf32>
        %sel = arith.select %cmp, %a0, %neg : tensor<3x4xi1>, tensor<3x4xf32>
        %f = arith.sitofp %a1 : tensor<3x4xi32> to tensor<3x4xf32>
        %p = math.powf %sel, %f : tensor<3x4xf32>
        %r = math.rsqrt %sel : tensor<3x4xf32>
        %l = math.log1p %sel : tensor<3x4xf32>
        %e = math.erf %a0 : tensor<3x4xf32>
        %s = transformer.add %r, %l : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
        %cst = arith.constant dense<2.0> : tensor<3x4xf32>
        %m = transformer.mul %e, %cst : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
        %three = arith.constant dense<3> : tensor<3x4xi32>
        %one = arith.constant dense<1> : tensor<3x4xi32>
        %i3 = arith.muli %a1, %three : tensor<3x4xi32>
        %i = arith.subi %i3, %one : tensor<3x4xi32>
        return %p, %s, %m, %i : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xi32>"""))
    xd = rand(rng, (2, 4))
    r = np.maximum(ref.f64(xd), 0)
    cases.append(Case("aliasing_results", [("tensor<?x4xf32>", xd)],
                      [("tensor<?x4xf32>", r), ("tensor<?x4xf32>", r), ("tensor<4xf32>", [1, 2, 3, 4]),
                       ("tensor<?x4xf32>", xd)], """
        %cst = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
        %0 = transformer.relu %a0 : tensor<?x4xf32> -> tensor<?x4xf32>
        return %0, %0, %cst, %a0 : tensor<?x4xf32>, tensor<?x4xf32>, tensor<4xf32>, tensor<?x4xf32>"""))
    y = ref.f64(x)
    for _ in range(3):
        y = ref.softmax(y)
    cases.append(Case("scf_while", [("tensor<3x4xf32>", x), ("index", ("index", 3))], [("tensor<3x4xf32>", y)], """
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %r:2 = scf.while (%i = %c0, %t = %a0) : (index, tensor<3x4xf32>) -> (index, tensor<3x4xf32>) {
          %lt = arith.cmpi slt, %i, %a1 : index
          scf.condition(%lt) %i, %t : index, tensor<3x4xf32>
        } do {
        ^bb0(%i: index, %t: tensor<3x4xf32>):
          %s = transformer.softmax %t : tensor<3x4xf32> -> tensor<3x4xf32>
          %i1 = arith.addi %i, %c1 : index
          scf.yield %i1, %s : index, tensor<3x4xf32>
        }
        return %r#1 : tensor<3x4xf32>"""))
    x48 = rand(rng, (4, 8))
    cases.append(Case("scf_forall", [("tensor<4x8xf32>", x48)], [("tensor<4x8xf32>", ref.softmax(x48))], """
        %e = tensor.empty() : tensor<4x8xf32>
        %r = scf.forall (%i) in (4) shared_outs(%o = %e) -> tensor<4x8xf32> {
          %row = tensor.extract_slice %a0[%i, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<1x8xf32>
          %s = transformer.softmax %row : tensor<1x8xf32> -> tensor<1x8xf32>
          scf.forall.in_parallel {
            tensor.parallel_insert_slice %s into %o[%i, 0] [1, 8] [1, 1] : tensor<1x8xf32> into tensor<4x8xf32>
          }
        }
        return %r : tensor<4x8xf32>"""))
    g = ref.f64(x) + np.arange(3)[:, None]
    t = g.reshape(4, 3).T.copy()
    t[0, 0] = 1
    cases.append(Case("tensor_generate_reshape", [("tensor<3x4xf32>", x)], [("tensor<3x4xf32>", t)], """
        %g = tensor.generate {
        ^bb0(%i: index, %j: index):
          %v = tensor.extract %a0[%i, %j] : tensor<3x4xf32>
          %ii = arith.index_cast %i : index to i64
          %fi = arith.sitofp %ii : i64 to f32
          %s = arith.addf %v, %fi : f32
          tensor.yield %s : f32
        } : tensor<3x4xf32>
        %shape = arith.constant dense<[4, 3]> : tensor<2xindex>
        %rs = tensor.reshape %g(%shape) : (tensor<3x4xf32>, tensor<2xindex>) -> tensor<4x3xf32>
        %t = transformer.transpose %rs : tensor<4x3xf32> -> tensor<3x4xf32>
        %c0 = arith.constant 0 : index
        %one = arith.constant 1.0 : f32
        %ins = tensor.insert %one into %t[%c0, %c0] : tensor<3x4xf32>
        return %ins : tensor<3x4xf32>"""))
    return cases


def math_erf(x):
    return np.vectorize(__import__("math").erf)(ref.f64(x))


GROUPS = {
    "elementwise": group_elementwise,
    "normalization": group_normalization,
    "matmul": group_matmul,
    "attention": group_attention,
    "embedding_rope": group_embedding_rope,
    "upstream": group_upstream,
    "upstream_more": group_upstream_more,
    "mixed": group_mixed,
}


# ---------------------------------------------------------------- driver ---

def module_text(cases):
    """The case functions and a @main that calls each one."""
    parts = [c.func() for c in cases]
    args, rets, body, results = [], [], [], []
    for ci, c in enumerate(cases):
        names = []
        for t, _ in c.ins:
            names.append("%%i%d" % len(args))
            args.append("%s: %s" % (names[-1], t))
        in_types = ", ".join(t for t, _ in c.ins)
        out_types = ", ".join(t for t, _ in c.outs)
        body.append("  %%r%d:%d = func.call @%s(%s) : (%s) -> (%s)"
                    % (ci, len(c.outs), c.name, ", ".join(names), in_types, out_types))
        for j, (t, _) in enumerate(c.outs):
            results.append("%%r%d#%d" % (ci, j))
            rets.append(t)
    parts.append("func.func @main(%s) -> (%s) {\n%s\n  return %s : %s\n}\n" % (
        ", ".join(args), ", ".join(rets), "\n".join(body), ", ".join(results), ", ".join(rets)))
    return "// Generated by test/lib/program_matrix.py.\n" + "\n".join(parts)


def input_flag(value, path):
    if isinstance(value, tuple):
        return "--input=%s=%s" % value
    np.save(path, value)
    return "--input=@" + path


def run(cases, workdir, tag, flags):
    """Runs the module of `cases`; returns (error or None, [outputs])."""
    path = os.path.join(workdir, tag + ".mlir")
    with open(path, "w") as f:
        f.write(module_text(cases))
    args = ["transformer-run", path, "-e", "main"] + flags
    n = 0
    for c in cases:
        for _, value in c.ins:
            args.append(input_flag(value, os.path.join(workdir, "%s_in%d.npy" % (tag, n))))
            n += 1
    outs = []
    for c in cases:
        for _ in c.outs:
            out = os.path.join(workdir, "%s_out%d.npy" % (tag, len(outs)))
            if os.path.exists(out):
                os.remove(out)
            outs.append(out)
            args.append("--output=@" + out)
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode < 0:
        return "transformer-run crashed (signal %d)" % -proc.returncode, []
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines() or ["(no message)"]
        return "transformer-run exited with %d: %s" % (proc.returncode, lines[0]), []
    return None, [np.load(o) for o in outs]


def compare(got, want):
    want = np.asarray(want)
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    if want.dtype.kind in "iu":
        return None if np.array_equal(got, want) else "integer results differ"
    if np.allclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True):
        return None
    bad = np.argwhere(~np.isclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True))
    where = tuple(bad[0])
    return "differs at %s: got %r, expected %r" % (where, got[where], want[where])


def main():
    group = sys.argv[1]
    cases = GROUPS[group](np.random.default_rng(8))
    names = [c.name for c in cases]
    assert len(set(names)) == len(names), "duplicate case names"
    if sys.argv[2] == "--emit":
        sys.stdout.write(module_text(cases))
        return 0
    workdir, flags = sys.argv[2], with_default_opt_level(sys.argv[3:])
    os.makedirs(workdir, exist_ok=True)
    failures = {}
    for index, chunk in enumerate(chunks(cases)):
        check_chunk(chunk, workdir, "%s%d" % (group, index), flags, failures)
    for c in cases:
        if c.name in failures:
            print("FAIL @%s: %s" % (c.name, failures[c.name]))
        else:
            print("PASS @%s" % c.name)
    print("%s: %d cases, %d failed" % (group, len(cases), len(failures)))
    return 1 if failures else 0


def chunks(cases):
    """Splits `cases` into modules whose @main has at most MAX_VALUES
    arguments and results: LLVM's instruction scheduler is quadratic in the
    size of the one block that unpacks them."""
    chunk, size = [], 0
    for c in cases:
        n = len(c.ins) + len(c.outs)
        if chunk and size + n > MAX_VALUES:
            yield chunk
            chunk, size = [], 0
        chunk.append(c)
        size += n
    if chunk:
        yield chunk


def check_chunk(cases, workdir, tag, flags, failures):
    error, outputs = run(cases, workdir, tag, flags)
    if error is None:
        it = iter(outputs)
        for c in cases:
            for j, (_, want) in enumerate(c.outs):
                why = compare(next(it), want)
                if why:
                    failures.setdefault(c.name, "result[%d] %s" % (j, why))
    else:
        print("note: module %s failed (%s); running each case alone" % (tag, error))
        for c in cases:
            err, outs = run([c], workdir, "single", flags)
            if err:
                failures[c.name] = err
                continue
            for j, ((_, want), got) in enumerate(zip(c.outs, outs)):
                why = compare(got, want)
                if why:
                    failures.setdefault(c.name, "result[%d] %s" % (j, why))


if __name__ == "__main__":
    sys.exit(main())
