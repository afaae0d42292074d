"""Writes .safetensors files with numpy only (no safetensors package).

Format: an unsigned 64-bit little-endian header length N, N bytes of JSON
mapping each name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets
relative to the end of the header), then the raw little-endian data. The
header is padded with spaces to a multiple of 8 bytes, as the reference
implementation does.

As a script: safetensors_io.py OUT.safetensors CASE writes one of the files
of test/transformer-run/parameters*.mlir (see CASES).
"""

import json
import struct
import sys

import numpy as np

DTYPES = {np.dtype(np.float32): "F32", np.dtype(np.float16): "F16",
          np.dtype(np.float64): "F64", np.dtype(np.int64): "I64",
          np.dtype(np.int32): "I32", np.dtype(np.uint8): "U8"}


def to_bf16_bytes(array):
    """bfloat16 bytes of a float32 array (round to nearest even)."""
    bits = np.ascontiguousarray(array, np.float32).view(np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype("<u2").tobytes()


def bf16_to_f32(array):
    """The float32 values that the bfloat16 rounding of `array` stands for."""
    raw = np.frombuffer(to_bf16_bytes(array), "<u2").astype(np.uint32) << 16
    return raw.view(np.float32).reshape(np.shape(array))


def encode(tensors, metadata=None):
    """The bytes of a file holding `tensors`: name -> numpy array, or name ->
    (dtype string, shape, raw bytes) for anything numpy cannot say."""
    header, chunks, offset = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, value in tensors.items():
        if isinstance(value, tuple):
            dtype, shape, raw = value
        else:
            array = np.ascontiguousarray(value)
            dtype, shape, raw = DTYPES[array.dtype], list(array.shape), array.astype(array.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def write(path, tensors, metadata=None):
    with open(path, "wb") as f:
        f.write(encode(tensors, metadata))


def write_raw(path, header, data):
    """A file with a hand-written header (for the malformed cases)."""
    text = json.dumps(header).encode() if not isinstance(header, bytes) else header
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def small_weights():
    """The weights of test/transformer-run/parameters.mlir."""
    rng = np.random.default_rng(7)
    return {"h.0.w": rng.standard_normal((3, 4)).astype(np.float32),
            "h.0.b": rng.standard_normal(4).astype(np.float32)}


def large_linear_weight():
    """An nn.Linear weight [out, in] = [150, 70] for
    test/transformer-run/parameters-transposed.mlir: more than one block of
    the runner's transpose each way, neither size a multiple of it."""
    return np.random.default_rng(11).standard_normal((150, 70)).astype(np.float32)


def large_linear_input():
    return np.random.default_rng(12).standard_normal((2, 70)).astype(np.float32)


def check_large(out_path, case):
    """@large of parameters-transposed.mlir: large_linear_input() times the
    weight transposed."""
    w = large_linear_weight()
    if case == "linear-f16":
        w = w.astype(np.float16).astype(np.float32)
    x = large_linear_input().astype(np.float64)
    expected = x @ w.astype(np.float64).T
    got = np.load(out_path)
    if got.shape != expected.shape or not np.allclose(got, expected, rtol=1e-4, atol=1e-4):
        print("FAIL large %s: max error %s" % (case, np.abs(got - expected).max()))
        return 1
    print("PASS large %s" % case)
    return 0


def make_case(path, case):
    w = small_weights()
    f32 = lambda a: ("F32", list(a.shape), a.astype("<f4").tobytes())
    if case == "good":
        write(path, w, metadata={"format": "pt"})
    elif case == "prefixed":  # a checkpoint saved from GPT2LMHeadModel
        write(path, {"transformer." + k: v for k, v in w.items()} |
              {"transformer.h.0.attn.bias": np.ones((1, 1, 4, 4), np.float32)})
    elif case == "f16":
        write(path, {k: v.astype(np.float16) for k, v in w.items()})
    elif case == "bf16":
        write(path, {k: ("BF16", list(v.shape), to_bf16_bytes(v)) for k, v in w.items()})
    elif case == "linear":  # h.0.w as nn.Linear stores it: [out, in]
        write(path, {"h.0.w": w["h.0.w"].T.copy(), "h.0.b": w["h.0.b"],
                     "h.1.w": large_linear_weight()})
    elif case == "linear-f16":
        write(path, {"h.0.w": w["h.0.w"].T.astype(np.float16), "h.0.b": w["h.0.b"],
                     "h.1.w": large_linear_weight().astype(np.float16)})
    elif case == "missing":
        write(path, {"h.0.w": w["h.0.w"]})
    elif case == "wrong-shape":
        write(path, {"h.0.w": w["h.0.w"].T.copy(), "h.0.b": w["h.0.b"]})
    elif case == "wrong-dtype":
        write(path, {"h.0.w": w["h.0.w"], "h.0.b": np.arange(4, dtype=np.int64)})
    elif case == "truncated":
        data = encode(w)
        with open(path, "wb") as f:
            f.write(data[:-8])
    elif case == "bad-header-length":
        data = bytearray(encode(w))
        data[0:8] = struct.pack("<Q", 1 << 40)
        with open(path, "wb") as f:
            f.write(bytes(data))
    elif case == "bad-json":
        write_raw(path, b'{"h.0.w": {"dtype": "F32", ', b"")
    elif case == "overlap":
        write_raw(path, {"h.0.w": {"dtype": "F32", "shape": [3, 4], "data_offsets": [0, 48]},
                         "h.0.b": {"dtype": "F32", "shape": [4], "data_offsets": [40, 56]}},
                  bytes(56))
    elif case == "size-mismatch":
        write_raw(path, {"h.0.w": {"dtype": "F32", "shape": [3, 4], "data_offsets": [0, 40]},
                         "h.0.b": {"dtype": "F32", "shape": [4], "data_offsets": [40, 56]}},
                  bytes(56))
    elif case == "unknown-dtype":
        write_raw(path, {"h.0.w": {"dtype": "F33", "shape": [3, 4], "data_offsets": [0, 48]}},
                  bytes(48))
    else:
        raise SystemExit("unknown case " + case)


def check(out_path, case, weight_type="f32"):
    """Compares the result of parameters.mlir's @main (x = 1..6 as 2x3) with
    numpy, with the weights as `case` stores them, and h.0.w then rounded to
    `weight_type` (the module's type for it: f32, f16 or bf16)."""
    w = small_weights()
    if case == "f16":
        w = {k: v.astype(np.float16).astype(np.float32) for k, v in w.items()}
    elif case == "linear-f16":
        w["h.0.w"] = w["h.0.w"].astype(np.float16).astype(np.float32)
    elif case == "bf16":
        w = {k: bf16_to_f32(v) for k, v in w.items()}
    if weight_type == "f16":
        w["h.0.w"] = w["h.0.w"].astype(np.float16).astype(np.float32)
    elif weight_type == "bf16":
        w["h.0.w"] = bf16_to_f32(w["h.0.w"])
    x = np.arange(1, 7, dtype=np.float64).reshape(2, 3)
    expected = x @ w["h.0.w"].astype(np.float64) + w["h.0.b"]
    got = np.load(out_path)
    if got.shape != expected.shape or not np.allclose(got, expected, rtol=1e-5, atol=1e-5):
        print("FAIL %s: got %s, expected %s" % (case, got, expected))
        return 1
    print("PASS %s" % case)
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "check":
        sys.exit(check(*sys.argv[2:5]))
    if sys.argv[1] == "large-input":
        sys.exit(np.save(sys.argv[2], large_linear_input()))
    if sys.argv[1] == "check-large":
        sys.exit(check_large(*sys.argv[2:4]))
    make_case(sys.argv[1], sys.argv[2])
