"""Weights, inputs and the numpy reference of
test/transformer-run/gated-mlp-panels.mlir: a Llama-family MLP,
down(silu(x gate) * (x up)) + x, with nn.Linear weights ([out, in]).

  gated_mlp.py weights OUT.safetensors   the weights file
  gated_mlp.py input ROWS OUT.npy        an input of ROWS x HIDDEN
  gated_mlp.py check X.npy Y.npy         the result of @main on X
  gated_mlp.py check-q8_0 X.npy Y.npy    the result of @q8_0 on X (the
                                         weights quantized when bound)
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import block_quant  # noqa: E402
import safetensors_io  # noqa: E402

HIDDEN = 96
INTERMEDIATE = 160


def weights():
    rng = np.random.default_rng(11)
    def w(*shape):
        return (rng.standard_normal(shape) / np.sqrt(shape[1])).astype(np.float32)
    return {"gate.w": w(INTERMEDIATE, HIDDEN), "up.w": w(INTERMEDIATE, HIDDEN),
            "down.w": w(HIDDEN, INTERMEDIATE)}


def reference(x, fmt=None):
    w = {name: (block_quant.round_trip(value, fmt) if fmt else value).astype(np.float64)
         for name, value in weights().items()}
    x = x.astype(np.float64)
    gate = x @ w["gate.w"].T
    up = x @ w["up.w"].T
    return (gate / (1.0 + np.exp(-gate)) * up) @ w["down.w"].T + x


def main(argv):
    if argv[0] == "weights":
        safetensors_io.write(argv[1], weights())
    elif argv[0] == "input":
        rng = np.random.default_rng(int(argv[1]))
        np.save(argv[2], rng.standard_normal((int(argv[1]), HIDDEN)).astype(np.float32))
    elif argv[0] in ("check", "check-q8_0"):
        x = np.load(argv[1])
        want = reference(x, "q8_0" if argv[0] == "check-q8_0" else None)
        got = np.load(argv[2])
        err = np.abs(got - want).max() / max(1.0, np.abs(want).max())
        if got.shape != want.shape or not err < 1e-5:
            print("FAIL: shape %s, relative error %s" % (got.shape, err))
            return 1
        print("PASS %d rows" % x.shape[0])
    else:
        sys.exit("unknown command " + argv[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
