"""Weights, inputs and the numpy reference of
test/transformer-run/parameters-panels.mlir.

  panel_params.py weights OUT.safetensors   the weights file
  panel_params.py weights-f16 OUT.safetensors   the same in f16
  panel_params.py input ROWS OUT.npy        an input of ROWS x 64
  panel_params.py check X.npy Y.npy Z.npy H.npy   the results of @main on X
  panel_params.py check-f16 ...             the same for the f16 weights
  panel_params.py check-16bit ...           the results of @main of
                                            parameters-panels-16bit.mlir
  panel_params.py input-big ROWS OUT.npy    an input of ROWS x 300 for @big
  panel_params.py check-big X.npy Y.npy     the result of @big on X
  panel_params.py check-big-16bit ...       the same with big.w in bf16
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_io  # noqa: E402

K = 64


def weights():
    rng = np.random.default_rng(7)
    def w(*shape):
        return rng.standard_normal(shape).astype(np.float32)
    return {
        # nn.Linear [out, in], bound transposed: read as [64, 96].
        "t.w": w(96, K),
        # [in, out] as the function reads it (a Conv1D weight).
        "c.w": w(K, 96),
        # 48 columns: panels of 16 (AVX2), not of 32 (AVX-512).
        "odd.w": w(K, 48),
        # Read by a product and an element-wise op: never in panels.
        "e.w": w(K, 96),
        # Passed to the private layer function by both of its calls.
        "l0.w": w(K, 64),
        "l1.w": w(K, 64),
        # @big: k blocks and a rest, 704 columns in cache tiles that do not
        # divide them.
        "big.w": w(300, 704),
    }


def reference(x, f16=False):
    w = {name: value.astype(np.float16 if f16 else np.float32).astype(np.float64)
         for name, value in weights().items()}
    y, z, h = products(x, w)
    return y + x.astype(np.float64) @ w["e.w"] + w["e.w"][0], z, h


def products(x, w):
    """What @main of both modules computes from the f64 weights `w`, but
    parameters-panels.mlir's e.w terms: x t.w^T + x c.w, x odd.w, and the
    two silu layers."""
    x = x.astype(np.float64)
    y = x @ w["t.w"].T + x @ w["c.w"]
    z = x @ w["odd.w"]
    h = x
    for name in ("l0.w", "l1.w"):
        h = h @ w[name]
        h = h / (1.0 + np.exp(-h))
    return y, z, h


# The formats of parameters-panels-16bit.mlir's weights, which the runner
# rounds the f32 file's values to when it binds them.
FORMATS_16BIT = {"t.w": "bf16", "c.w": "f16", "odd.w": "bf16",
                 "l0.w": "bf16", "l1.w": "bf16", "big.w": "bf16"}


def rounded(name, value):
    fmt = FORMATS_16BIT.get(name)
    if fmt == "bf16":
        return safetensors_io.bf16_to_f32(value)
    if fmt == "f16":
        return value.astype(np.float16).astype(np.float32)
    return value


def reference_16bit(x):
    return products(x, {name: rounded(name, value).astype(np.float64)
                        for name, value in weights().items()})


def main(argv):
    if argv[0] == "weights":
        safetensors_io.write(argv[1], weights())
    elif argv[0] == "weights-f16":
        safetensors_io.write(argv[1], {name: value.astype(np.float16)
                                       for name, value in weights().items()})
    elif argv[0] == "input":
        rng = np.random.default_rng(int(argv[1]))
        np.save(argv[2], rng.standard_normal((int(argv[1]), K)).astype(np.float32))
    elif argv[0] in ("check", "check-f16", "check-16bit"):
        x = np.load(argv[1])
        wanted = (reference_16bit(x) if argv[0] == "check-16bit"
                  else reference(x, argv[0] == "check-f16"))
        for name, got, want in zip("yzh", argv[2:5], wanted):
            got = np.load(got)
            err = np.abs(got - want).max() / max(1.0, np.abs(want).max())
            if got.shape != want.shape or not err < 1e-5:
                print("FAIL %s: shape %s, relative error %s" % (name, got.shape, err))
                return 1
        print("PASS %d rows" % x.shape[0])
    elif argv[0] == "input-big":
        rng = np.random.default_rng(int(argv[1]))
        np.save(argv[2], rng.standard_normal((int(argv[1]), 300)).astype(np.float32))
    elif argv[0] in ("check-big", "check-big-16bit"):
        x = np.load(argv[1]).astype(np.float64)
        big = weights()["big.w"]
        if argv[0] == "check-big-16bit":
            big = rounded("big.w", big)
        want = x @ big.astype(np.float64)
        got = np.load(argv[2])
        err = np.abs(got - want).max() / max(1.0, np.abs(want).max())
        if got.shape != want.shape or not err < 1e-5:
            print("FAIL big: shape %s, relative error %s" % (got.shape, err))
            return 1
        print("PASS big %d rows" % x.shape[0])
    else:
        sys.exit("unknown command " + argv[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
