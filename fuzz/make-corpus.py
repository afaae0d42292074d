"""Builds the seed corpora of the fuzz targets from the test suite.

Usage: make-corpus.py OUTDIR
Writes OUTDIR/compiler/* (every test .mlir file, split at `// -----` and
`//--- name` markers) and OUTDIR/inputs/* (value specs and .npy files, each
prefixed by the selector byte that fuzz-inputs.cpp reads).
"""

import hashlib
import io
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write(directory, data):
    os.makedirs(directory, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def compiler_seeds(out):
    for base in ("test", "examples"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, base)):
            for fname in files:
                if not fname.endswith(".mlir"):
                    continue
                with open(os.path.join(dirpath, fname), "rb") as f:
                    text = f.read()
                for chunk in re.split(rb"^// -----$|^//--- .*$", text, flags=re.M):
                    if chunk.strip():
                        write(out, chunk)


def input_seeds(out):
    specs = ["2x3xf32=1 2 3 4 5 6", "2x2xf32=[[1 2][3 4]]", "4x4xf32=0.5",
             "8x8xf32=random", "3xi64=5 -1 9000000000", "4xi32=[1 2 3 4]",
             "f32=1.5", "index=3", "1x3xf32=nan -inf inf", "0x4xf32=0", "7"]
    for spec in specs:
        write(out, b"\x00" + spec.encode())
        write(out, b"\x0e" + spec.encode())
    try:
        import numpy as np
    except ImportError:
        return
    for array in (np.arange(6, dtype=np.float32).reshape(2, 3),
                  np.arange(4, dtype=np.int32), np.arange(3, dtype=np.int64),
                  np.float32(2.5), np.zeros((0, 3), np.float32)):
        buf = io.BytesIO()
        np.save(buf, array)
        write(out, b"\x01" + buf.getvalue())


def main():
    out = sys.argv[1]
    compiler_seeds(os.path.join(out, "compiler"))
    input_seeds(os.path.join(out, "inputs"))


if __name__ == "__main__":
    main()
