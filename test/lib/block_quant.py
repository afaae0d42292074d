"""llama.cpp's block-quantized weight formats Q8_0 and Q4_0 in numpy, bit for
bit as ggml's reference C functions (ggml/src/ggml-quants.c:
quantize_row_q8_0_ref, quantize_row_q4_0_ref, dequantize_row_q8_0,
dequantize_row_q4_0) compute them on x86-64.

Blocks of 32 values along the last axis. A block is laid out as ggml's
in-memory struct, and as a GGUF file stores it:
  block_q8_0 (34 bytes): d, the fp16 scale (2 bytes, little-endian), then
                         32 int8 qs; the value j is d * qs[j].
  block_q4_0 (18 bytes): d (fp16), then 16 bytes qs: byte j holds value j
                         in its low nibble and value j + 16 in its high
                         nibble, each as q + 8 (0..15); the value is d * q.
`quantize(w, fmt)` turns float32 [N, K] into the raw blocks, uint8
[N, K/32, BLOCK_BYTES[fmt]] (its .view(np.int8) is the module's
tensor<N x K/32 x 34 x i8> argument); `dequantize(blocks, fmt)` gives the
float32 [N, K] the blocks stand for.

The rounding, as the C does it in float32:
  q8_0: amax = max |x|, d = amax / 127, id = d ? 1/d : 0,
        q = roundf(x * id) (half away from zero).
  q4_0: max = the x of largest |x| (the first on ties; +0 when all are
        zero), d = max / -8, id = d ? 1/d : 0,
        q = MIN(15, (int8_t)(x * id + 8.5f)) (truncation), stored as is.
  d is stored as fp16 rounded to nearest even (ggml's FP32_TO_FP16; numpy's
  astype(float16) is the same rounding). Where id is infinite (a block whose
  largest |x| is below about 1.2e-38 * 127, so that 1/d overflows), x * id is
  +-inf or NaN, which C converts to int8 as x86's cvttss2si does: 0x80000000,
  whose low byte 0 is stored. NaN and infinite inputs are not supported.
"""

import numpy as np

QK = 32
BLOCK_BYTES = {"q8_0": 2 + QK, "q4_0": 2 + QK // 2}
GGML_TYPE = {"q8_0": 8, "q4_0": 2}
FORMATS = tuple(BLOCK_BYTES)


def _check_format(fmt):
    if fmt not in BLOCK_BYTES:
        raise ValueError("block format %r: one of %s" % (fmt, ", ".join(FORMATS)))


def _blocks(w):
    """float32 [..., K] as [..., K/32, 32]."""
    w = np.asarray(w, dtype=np.float32)
    if w.ndim < 1 or w.shape[-1] % QK != 0:
        raise ValueError("block quantization: the last dimension (%s) must be a multiple "
                         "of the block size %d" % (w.shape[-1] if w.ndim else "scalar", QK))
    return w.reshape(w.shape[:-1] + (w.shape[-1] // QK, QK))


def _to_int32_x86(y):
    """C's float -> int conversion of float32 `y` as x86's cvttss2si:
    truncation toward zero, and 0x80000000 for NaN and values outside int32;
    as int32."""
    y = np.asarray(y, dtype=np.float32)
    # float32 holds -2^31 and 2^31 exactly; every float32 in between
    # truncates into int32.
    ok = (y >= np.float32(-2147483648.0)) & (y < np.float32(2147483648.0))
    if ok.all():
        return np.trunc(y).astype(np.int32)
    out = np.full(y.shape, -2147483648, dtype=np.int32)
    out[ok] = np.trunc(y[ok]).astype(np.int32)
    return out


def _roundf(y):
    """C's roundf on float32 (half away from zero), exactly: y - trunc(y) is
    exact in float32."""
    t = np.trunc(y)
    with np.errstate(invalid="ignore"):
        up = np.abs(y - t) >= np.float32(0.5)
    return np.where(up, t + np.copysign(np.float32(1.0), y), t).astype(np.float32)


def _scale_and_inverse(d):
    """d as ggml holds it in float32, and id = d ? 1.0f/d : 0.0f."""
    with np.errstate(divide="ignore", over="ignore"):
        inv = np.float32(1.0) / np.where(d != 0, d, np.float32(1.0))
    return np.where(d != 0, inv, np.float32(0.0)).astype(np.float32)


def _fp16_bytes(d):
    """ggml's GGML_FP32_TO_FP16 (round to nearest even, overflow to inf) as
    2 little-endian bytes per value: [..., 2] uint8."""
    with np.errstate(over="ignore"):
        half = np.ascontiguousarray(d.astype("<f2"))
    return half.view(np.uint8).reshape(d.shape + (2,))


def _quantize_q8_0(x):
    amax = np.max(np.abs(x), axis=-1)
    d = (amax / np.float32(127)).astype(np.float32)
    inv = _scale_and_inverse(d)
    with np.errstate(over="ignore", invalid="ignore"):
        y = (x * inv[..., None]).astype(np.float32)
    qs = _to_int32_x86(_roundf(y)).astype(np.uint8)   # (int8_t): the low byte
    return np.concatenate([_fp16_bytes(d), qs], axis=-1)


def _quantize_q4_0(x):
    mag = np.abs(x)
    first = np.argmax(mag, axis=-1)
    mx = np.take_along_axis(x, first[..., None], axis=-1)[..., 0]
    # The C keeps max = 0.0f until some |v| > 0 (an all-zero block's -0.0
    # values never replace it).
    mx = np.where(np.max(mag, axis=-1) > 0, mx, np.float32(0.0)).astype(np.float32)
    d = (mx / np.float32(-8)).astype(np.float32)
    inv = _scale_and_inverse(d)
    with np.errstate(over="ignore", invalid="ignore"):
        y = (x * inv[..., None]).astype(np.float32)
        y = (y + np.float32(8.5)).astype(np.float32)
    q = _to_int32_x86(y).astype(np.int8)              # (int8_t): the low byte
    q = np.minimum(np.int8(15), q).astype(np.uint8)   # (uint8_t)MIN(15, ...)
    qs = q[..., :QK // 2] | (q[..., QK // 2:] << np.uint8(4))
    return np.concatenate([_fp16_bytes(d), qs], axis=-1)


def quantize(w, fmt):
    """float32 [..., K] (K a multiple of 32) -> uint8 [..., K/32,
    BLOCK_BYTES[fmt]], the raw blocks of ggml's quantize_row_<fmt>_ref."""
    _check_format(fmt)
    x = _blocks(w)
    return _quantize_q8_0(x) if fmt == "q8_0" else _quantize_q4_0(x)


def scales(blocks):
    """The float32 scale d of each block: [..., K/32]."""
    blocks = np.ascontiguousarray(blocks, dtype=np.uint8)
    return blocks[..., :2].copy().view("<f2")[..., 0].astype(np.float32)


def values(blocks, fmt):
    """The integer q of each weight, [..., K/32, 32] int8 (q4_0: -8..7)."""
    _check_format(fmt)
    blocks = np.asarray(blocks, dtype=np.uint8)
    if blocks.ndim < 2 or blocks.shape[-1] != BLOCK_BYTES[fmt]:
        raise ValueError("%s blocks: the last dimension must be %d bytes, not %s"
                         % (fmt, BLOCK_BYTES[fmt], blocks.shape[-1:]))
    qs = blocks[..., 2:]
    if fmt == "q8_0":
        return qs.view(np.int8)
    return np.concatenate([(qs & 0x0F).astype(np.int8) - 8, (qs >> 4).astype(np.int8) - 8],
                          axis=-1)


def dequantize(blocks, fmt):
    """uint8 (or int8) [..., K/32, BLOCK_BYTES[fmt]] -> float32 [..., K]:
    each weight f32(d) * q, as ggml's dequantize_row_<fmt>."""
    blocks = np.ascontiguousarray(blocks).view(np.uint8)
    q = values(blocks, fmt)
    with np.errstate(invalid="ignore"):
        out = q.astype(np.float32) * scales(blocks)[..., None]
    return out.reshape(out.shape[:-2] + (out.shape[-2] * QK,)).astype(np.float32)


def round_trip(w, fmt):
    """The float32 values a weight [..., K] holds once quantized along its
    last axis: dequantize(quantize(w, fmt), fmt)."""
    return dequantize(quantize(w, fmt), fmt)


def nbytes(shape, fmt):
    """The bytes of a [..., K] tensor in `fmt`."""
    _check_format(fmt)
    if shape[-1] % QK != 0:
        raise ValueError("block quantization: the last dimension (%d) must be a multiple "
                         "of the block size %d" % (shape[-1], QK))
    return int(np.prod(shape[:-1], dtype=np.int64)) * (shape[-1] // QK) * BLOCK_BYTES[fmt]
