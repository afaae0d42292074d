"""GGUF files for the reader's tests: a small valid file (the weights of
test/transformer-run/parameters-gguf.mlir) and malformed variants.

Usage: gguf_cases.py OUT.gguf CASE
"""

import struct
import sys

import numpy as np

import gguf_writer
import safetensors_io
from gguf_writer import STRING, UINT32


def make(path, case):
    w = safetensors_io.small_weights()
    meta = {"general.architecture": (STRING, "test")}
    if case in ("f32", "f16", "bf16"):
        gguf_writer.write(path, meta, w, {"h.0.w": case})
    elif case == "q8_0":
        # Two rows of one Q8_0 block each: an f16 scale and 32 int8 values.
        block = np.float16(0.5).tobytes() + bytes(range(32))
        gguf_writer.write(path, meta, {"h.0.w": (8, (2, 32), block * 2), "h.0.b": w["h.0.b"]})
    elif case == "q6_k":
        gguf_writer.write(path, meta, {"h.0.w": (14, (3, 4), bytes(8)), "h.0.b": w["h.0.b"]})
    elif case == "q8_0-odd-row":
        gguf_writer.write(path, meta, {"h.0.w": (8, (2, 20), bytes(68)), "h.0.b": w["h.0.b"]})
    elif case == "truncated":
        gguf_writer.write(path, meta, w)
        data = open(path, "rb").read()
        open(path, "wb").write(data[:-8])
    elif case == "truncated-header":
        gguf_writer.write(path, meta, w)
        data = open(path, "rb").read()
        open(path, "wb").write(data[:40])
    elif case == "version":
        gguf_writer.write(path, meta, w)
        data = bytearray(open(path, "rb").read())
        data[4:8] = struct.pack("<I", 7)
        open(path, "wb").write(bytes(data))
    elif case == "alignment":
        gguf_writer.write(path, dict(meta, **{"general.alignment": (UINT32, 24)}), w)
    elif case == "dims":
        # A tensor info claiming 9 dimensions.
        gguf_writer.write(path, meta, {"h.0.w": (0, (1,) * 9, bytes(4))})
    elif case == "empty-huge":
        # An empty tensor whose other dim is huge (a fuzz-weights finding).
        gguf_writer.write(path, meta, {"h.0.w": (0, (1 << 62, 0), b"")})
    else:
        raise SystemExit("unknown case " + case)


if __name__ == "__main__":
    make(sys.argv[1], sys.argv[2])
