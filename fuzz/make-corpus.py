"""Builds the seed corpora of the fuzz targets from the test suite.

Usage: make-corpus.py OUTDIR
Writes OUTDIR/compiler/* (every test .mlir file, split at `// -----` and
`//--- name` markers), OUTDIR/inputs/* (value specs and .npy files, each
prefixed by the selector byte that fuzz-inputs.cpp reads) and
OUTDIR/weights/* (small .safetensors and GGUF files, prefixed by
fuzz-weights.cpp's selector byte).
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


def weight_seeds(out):
    try:
        import numpy as np
    except ImportError:
        return
    import tempfile
    sys.path.insert(0, os.path.join(ROOT, "test", "lib"))
    import gguf_writer
    import safetensors_io
    rng = np.random.default_rng(0)
    w = {"h.0.w": rng.standard_normal((3, 4)).astype(np.float32),
         "h.0.b": rng.standard_normal(4).astype(np.float32)}
    write(out, b"\x00" + safetensors_io.encode(w))
    write(out, b"\x00" + safetensors_io.encode({k: v.astype(np.float16) for k, v in w.items()}))
    # GPT-2's names, which the reader maps (and transposes) for "gpt2".
    weights = {"token_embd.weight": rng.standard_normal((4, 32)).astype(np.float32),
               "blk.0.attn_qkv.weight": rng.standard_normal((96, 32)).astype(np.float32)}
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("f32", "bf16", "q8_0", "q4_0"):
            path = os.path.join(tmp, kind + ".gguf")
            gguf_writer.write(path, {"general.architecture": (gguf_writer.STRING, "gpt2")},
                              weights, {name: kind for name in weights})
            with open(path, "rb") as f:
                write(out, b"\x01" + f.read())


def main():
    out = sys.argv[1]
    compiler_seeds(os.path.join(out, "compiler"))
    input_seeds(os.path.join(out, "inputs"))
    weight_seeds(os.path.join(out, "weights"))


if __name__ == "__main__":
    main()
