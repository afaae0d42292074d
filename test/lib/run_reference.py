"""Runs functions of a .mlir file with transformer-run and compares the
results with a numpy reference computed in float64.

The test file embeds the reference in comment lines starting with `// PY:`.
They define, for each function `NAME` to run, a Python function
`case_NAME(rng)` that returns `(inputs, expected)`: lists of numpy arrays (or
Python scalars for scalar arguments, given as ("index", 3) / ("f32", 1.5)).
`np` is numpy; `ref` is the `reference_ops` module with float64 versions of
the dialect's ops, `bq` the `block_quant` module (ggml's Q8_0 and Q4_0
blocks). Random inputs come from `rng` (seeded per case).

Usage: run_reference.py FILE.mlir WORKDIR [extra transformer-run flags]
Prints `PASS @NAME: result[i] ...` per result, or `FAIL ...` and exits 1.
"""

import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import block_quant  # noqa: E402
import reference_ops  # noqa: E402
from run_flags import with_default_opt_level  # noqa: E402

RTOL = 1e-4
ATOL = 1e-5


def load_cases(path):
    source = []
    with open(path) as f:
        for line in f:
            stripped = line.strip()
            if stripped.startswith("// PY:"):
                source.append(stripped[len("// PY:"):][1:] if stripped[len("// PY:"):].startswith(" ") else stripped[len("// PY:"):])
    scope = {"np": np, "ref": reference_ops, "bq": block_quant}
    exec("\n".join(source), scope)
    return {name[len("case_"):]: fn for name, fn in scope.items()
            if name.startswith("case_") and callable(fn)}


def as_input(value, path):
    if isinstance(value, tuple):
        kind, number = value
        return "%s=%s" % (kind, number)
    np.save(path, value)
    return "@" + path


def main():
    mlir, workdir = sys.argv[1], sys.argv[2]
    extra = with_default_opt_level(sys.argv[3:])
    os.makedirs(workdir, exist_ok=True)
    cases = load_cases(mlir)
    if not cases:
        print("FAIL: no `// PY: def case_NAME(rng)` in %s" % mlir)
        return 1
    status = 0
    for index, (name, case) in enumerate(sorted(cases.items())):
        rng = np.random.default_rng(1234 + index)
        inputs, expected = case(rng)
        args = ["transformer-run", mlir, "-e", name] + extra
        for i, value in enumerate(inputs):
            args.append("--input=" + as_input(value, os.path.join(workdir, "%s_in%d.npy" % (name, i))))
        outs = []
        for i in range(len(expected)):
            out = os.path.join(workdir, "%s_out%d.npy" % (name, i))
            if os.path.exists(out):
                os.remove(out)
            outs.append(out)
            args.append("--output=@" + out)
        proc = subprocess.run(args, capture_output=True, text=True)
        if proc.returncode != 0:
            print("FAIL @%s: transformer-run exited with %d: %s" % (name, proc.returncode, proc.stderr.strip()))
            status = 1
            continue
        for i, (out, want) in enumerate(zip(outs, expected)):
            got = np.load(out)
            want = np.asarray(want)
            if got.shape != want.shape:
                print("FAIL @%s: result[%d] has shape %s, expected %s" % (name, i, got.shape, want.shape))
                status = 1
                continue
            if want.dtype.kind in "iu":
                ok = np.array_equal(got, want)
                err = 0.0 if ok else float(np.max(np.abs(got.astype(np.int64) - want.astype(np.int64))))
            else:
                ok = np.allclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True)
                finite = np.isfinite(want) & np.isfinite(got)
                err = float(np.max(np.abs(got[finite] - want[finite]) / (np.abs(want[finite]) + ATOL))) if finite.any() else 0.0
            if ok:
                print("PASS @%s: result[%d] %s matches numpy (max rel err %.2e)" % (name, i, "x".join(map(str, got.shape)), err))
            else:
                bad = np.argwhere(~np.isclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True))
                where = tuple(bad[0]) if len(bad) else ()
                print("FAIL @%s: result[%d] differs at %s: got %r, expected %r" % (name, i, where, got[where], want[where]))
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
