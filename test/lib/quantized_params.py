"""Weights files for test/transformer-run/parameters-quantized.mlir, and the
check of the blocks the runner bound.

`make DIR` writes, for a matrix `plain` [40, 64] and a Conv1D-like `conv`
[64, 96] ([in, out]: the module quantizes its transpose):
  DIR/f32.safetensors, f16.safetensors, bf16.safetensors  (the floats)
  DIR/q8_0.gguf, q4_0.gguf  (llama.cpp's blocks; `conv` stored as its
                             transpose, as llama.cpp stores Conv1D weights)
  DIR/f32.gguf              (F32, in the same orientation)
  DIR/gpt2.gguf             (`conv` as GPT-2's blk.0.attn_qkv.weight, Q8_0)
`check OUT.npy NAME FMT SOURCE` compares the blocks returned in OUT.npy with
the quantization of tensor NAME of SOURCE (f32, f16 or bf16: the floats as
the file stores them) by the tests' ggml-exact quantizer, byte for byte.
"""

import os
import sys

import numpy as np

import block_quant
import gguf_writer
import safetensors_io
from gguf_writer import STRING


def floats():
    rng = np.random.default_rng(7)
    return {"plain": rng.standard_normal((40, 64)).astype(np.float32),
            "conv": rng.standard_normal((64, 96)).astype(np.float32)}


def held(source):
    """The weights as a file of type `source` holds them, as float32."""
    w = floats()
    if source == "f16":
        return {k: v.astype(np.float16).astype(np.float32) for k, v in w.items()}
    if source == "bf16":
        return {k: safetensors_io.bf16_to_f32(v) for k, v in w.items()}
    return w


def quantized_rows(name, source):
    """The [rows, K] matrix the module quantizes: `conv` transposed."""
    w = held(source)[name]
    return w.T.copy() if name == "conv" else w


def make(out):
    os.makedirs(out, exist_ok=True)
    w = floats()
    safetensors_io.write(os.path.join(out, "f32.safetensors"), w)
    safetensors_io.write(os.path.join(out, "f16.safetensors"),
                         {k: v.astype(np.float16) for k, v in w.items()})
    bf16 = {k: ("BF16", v.shape, safetensors_io.to_bf16_bytes(v)) for k, v in w.items()}
    safetensors_io.write(os.path.join(out, "bf16.safetensors"), bf16)
    meta = {"general.architecture": (STRING, "test")}
    ggml = {"plain": w["plain"], "conv": w["conv"].T.copy()}
    for fmt in ("q8_0", "q4_0"):
        gguf_writer.write(os.path.join(out, fmt + ".gguf"), meta, ggml,
                          {"plain": fmt, "conv": fmt})
    gguf_writer.write(os.path.join(out, "f32.gguf"), meta, ggml)
    # GPT-2's names: the module's 'h.0.attn.c_attn.weight' (a Conv1D weight)
    # is llama.cpp's 'blk.0.attn_qkv.weight', stored transposed.
    gpt2 = {"general.architecture": (STRING, "gpt2")}
    gguf_writer.write(os.path.join(out, "gpt2.gguf"), gpt2,
                      {"blk.0.attn_qkv.weight": ggml["conv"]},
                      {"blk.0.attn_qkv.weight": "q8_0"})


def check(out_npy, name, fmt, source):
    got = np.load(out_npy)
    want = block_quant.quantize(quantized_rows(name, source), fmt).view(np.int8)
    if got.dtype != np.int8 or got.shape != want.shape:
        print("FAIL %s: got %s %s, expected %s %s" % (name, got.dtype, got.shape, want.dtype, want.shape))
        return 1
    differ = int(np.count_nonzero(got != want))
    if differ:
        print("FAIL %s %s from %s: %d of %d bytes differ" % (name, fmt, source, differ, got.size))
        return 1
    print("PASS %s %s from %s: %d blocks equal ggml's" % (name, fmt, source, got.shape[0] * got.shape[1]))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "check":
        sys.exit(check(*sys.argv[2:6]))
    else:
        sys.exit("usage: quantized_params.py make DIR | check OUT.npy NAME FMT SOURCE")
