"""float64 numpy versions of the transformer dialect's ops, written from the
dialect contract (not from our lowering), for the execution tests."""

import math

import numpy as np


def f64(x):
    return np.asarray(x, dtype=np.float64)


def round_to(x, dtype):
    """The f32 array `x` rounded to nearest even in "f16" or "bf16" and
    widened back: the values a 16-bit weight argument holds when the runner
    binds f32 data to it."""
    x = np.asarray(x, dtype=np.float32)
    if dtype == "f16":
        return x.astype(np.float16).astype(np.float32)
    if dtype != "bf16":
        raise ValueError("round_to: f16 or bf16, not %r" % dtype)
    bits = x.view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


def matmul(a, b, transpose_b=False):
    b = f64(b)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    return f64(a) @ b


def softmax(x):
    x = f64(x)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def masked_softmax(x, mask):
    z = f64(x) + f64(mask)
    m = z.max(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        e = np.where(np.isneginf(m), 0.0, np.exp(z - np.where(np.isneginf(m), 0.0, m)))
    s = e.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s == 0, 0.0, e / np.where(s == 0, 1.0, s))


def gelu_tanh(x):
    x = f64(x)
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def gelu_erf(x):
    x = f64(x)
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def layer_norm(x, gamma, beta, eps=1e-5):
    x = f64(x)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * f64(gamma) + f64(beta)


def linear(x, w, b):
    return f64(x) @ f64(w).T + f64(b)


def causal_mask(sq, sk, window=None):
    """0 where query i sees key j (j <= i + sk - sq, and with a window W
    also j > i + sk - sq - W), -inf elsewhere."""
    i = np.arange(sq)[:, None] + sk - sq
    j = np.arange(sk)[None, :]
    seen = j <= i
    if window is not None:
        seen &= j > i - window
    return np.where(seen, 0.0, -np.inf)


def repeat_kv(x, heads):
    """Key/value heads (dim -3) repeated to `heads` query heads: query head
    h reads head h // (heads // Hkv), as Hugging Face's repeat_kv."""
    return np.repeat(x, heads // x.shape[-3], axis=-3)


def attention(q, k, v, scale=None, causal=False, mask=None, window=None):
    q, k, v = f64(q), f64(k), f64(v)
    if q.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        k, v = repeat_kv(k, q.shape[-3]), repeat_kv(v, q.shape[-3])
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    s = q @ np.swapaxes(k, -1, -2) * scale
    total = np.zeros(s.shape)
    if mask is not None:
        total = total + f64(mask)
    if causal:
        total = total + causal_mask(q.shape[-2], k.shape[-2], window)
    return masked_softmax(s, total) @ v


def rope(x, offset=0, base=10000.0, freqs=None, rotate_half=False):
    """Pairs (2j, 2j+1), or (j, j + D/2) with rotate_half, rotated by
    position * theta_j; theta_j = base^(-2j/D), or freqs[j]. The angle is
    the product of the float32 position and frequency, as the op computes
    it, so that large positions keep f32 accuracy in the comparison."""
    x = f64(x)
    s, d = x.shape[-2], x.shape[-1]
    pos = np.arange(offset, offset + s, dtype=np.float64)[:, None]
    if freqs is None:
        theta = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    else:
        theta = f64(np.asarray(freqs, np.float32))
    angle = pos * theta[None, :]
    cos, sin = np.cos(angle), np.sin(angle)
    if rotate_half:
        first, second = x[..., : d // 2], x[..., d // 2:]
        return np.concatenate([first * cos - second * sin,
                               second * cos + first * sin], axis=-1)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def rms_norm(x, gamma, eps=1e-6):
    x = f64(x)
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * f64(gamma)


def silu(x):
    x = f64(x)
    return x / (1.0 + np.exp(-x))


def embedding(ids, table):
    return f64(table)[np.asarray(ids)]
