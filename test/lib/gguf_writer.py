"""A small GGUF (version 3) writer, enough for GPT-2 and the Llama family in
llama.cpp's layout.

GGUF as ggml's gguf.c reads it: the magic "GGUF", the version, the tensor
and key-value counts, the key-values (typed), the tensor infos (name, dims
innermost first, ggml type, offset into the data), then the data, each
tensor aligned to `general.alignment` (32). Tensors are written as F32,
F16 or BF16 (rounded to nearest even), or as llama.cpp's block formats Q8_0
and Q4_0 (quantized along the innermost dimension, GGUF's ne[0], with
ggml's reference rounding: block_quant.py).

`write_gpt2(path, cfg, weights)` writes a Hugging Face GPT-2 (the names and
Conv1D layout of gpt2_reference.random_weights) with llama.cpp's tensor names
and orientation (`blk.N.attn_qkv.weight` is Conv1D's transpose) and a
synthetic byte-level BPE vocabulary of the config's size, which llama.cpp
loads (benchmarks feed it token ids, never text).

`write_llama(path, cfg, weights)` writes a Hugging Face Llama, Qwen2 or
Mistral model (llama_reference's names) as llama.cpp's convert_hf_to_gguf.py
does: architecture `llama` (Llama and Mistral) or `qwen2`, `token_embd`,
`blk.N.{attn_norm, attn_q, attn_k, attn_v, attn_output, ffn_norm, ffn_gate,
ffn_up, ffn_down}`, `output_norm`, `output` (untied heads); for `llama` the
rows of q and k (and their biases) are reordered for its rope
(`permute_rope_rows`).
"""

import os
import re
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import block_quant  # noqa: E402

GGUF_MAGIC = b"GGUF"
GGUF_VERSION = 3
ALIGNMENT = 32

# Value types of gguf.h.
UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64 = 4, 5, 6, 7, 8, 9, 10
# ggml types, and the bytes of each (from float32 values).
GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 = 0, 1, 30
GGML_TYPE_Q4_0, GGML_TYPE_Q8_0 = block_quant.GGML_TYPE["q4_0"], block_quant.GGML_TYPE["q8_0"]
GGML_TYPES = {"f32": GGML_TYPE_F32, "f16": GGML_TYPE_F16, "bf16": GGML_TYPE_BF16,
              "q8_0": GGML_TYPE_Q8_0, "q4_0": GGML_TYPE_Q4_0}
# llama.cpp's general.file_type (LLAMA_FTYPE_ALL_F32, _MOSTLY_F16, _MOSTLY_BF16,
# _MOSTLY_Q8_0, _MOSTLY_Q4_0).
FILE_TYPES = {"f32": 0, "f16": 1, "bf16": 32, "q8_0": 7, "q4_0": 2}


def _tensor_bytes(array, kind):
    array = np.ascontiguousarray(array, dtype="<f4")
    if kind == "f32":
        return array.tobytes()
    if kind in block_quant.BLOCK_BYTES:
        # [.., K] as the raw blocks along K: N * K/32 * block bytes.
        return block_quant.quantize(array, kind).tobytes()
    if kind == "f16":
        return array.astype("<f2").tobytes()
    bits = array.view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("<u2").tobytes()


def _string(text):
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def _value(kind, value):
    if kind == STRING:
        return _string(value)
    if kind == UINT32:
        return struct.pack("<I", value)
    if kind == INT32:
        return struct.pack("<i", value)
    if kind == UINT64:
        return struct.pack("<Q", value)
    if kind == FLOAT32:
        return struct.pack("<f", value)
    if kind == BOOL:
        return struct.pack("<B", 1 if value else 0)
    raise ValueError("unsupported GGUF value type %d" % kind)


def _key_value(key, kind, value):
    out = _string(key) + struct.pack("<I", kind)
    if kind == ARRAY:
        element_kind, items = value
        out += struct.pack("<IQ", element_kind, len(items))
        if element_kind == INT32:
            out += np.asarray(items, dtype="<i4").tobytes()
        else:
            out += b"".join(_value(element_kind, item) for item in items)
        return out
    return out + _value(kind, value)


def write(path, metadata, tensors, types=None):
    """Writes `tensors` (name -> float32 numpy array, in numpy's row-major
    order, so that GGUF's dims are the shape reversed) with `metadata`
    (key -> (GGUF type, value); an array is (ARRAY, (element type, list))).
    `types` maps a tensor's name to "f16", "bf16", "q8_0" or "q4_0" to store
    it so (F32 otherwise; a block format quantizes along the last numpy
    axis, whose size must be a multiple of 32). A tensor given as (ggml type
    number, shape, bytes) is written as it is (quantized or malformed data
    for the tests)."""
    types = types or {}
    metadata = dict(metadata)
    metadata.setdefault("general.alignment", (UINT32, ALIGNMENT))
    header = GGUF_MAGIC + struct.pack("<IQQ", GGUF_VERSION, len(tensors), len(metadata))
    header += b"".join(_key_value(k, kind, v) for k, (kind, v) in metadata.items())
    infos, offset, blobs = b"", 0, []
    for name, array in tensors.items():
        if isinstance(array, tuple):
            ggml_type, shape, data = array
        else:
            kind = types.get(name, "f32")
            ggml_type, shape, data = GGML_TYPES[kind], np.shape(array), _tensor_bytes(array, kind)
        dims = list(reversed(shape))
        infos += _string(name) + struct.pack("<I", len(dims))
        infos += struct.pack("<%dQ" % len(dims), *dims)
        infos += struct.pack("<IQ", ggml_type, offset)
        blobs.append((offset, data))
        offset += -(-len(data) // ALIGNMENT) * ALIGNMENT
    with open(path, "wb") as f:
        f.write(header + infos)
        f.write(b"\0" * (-f.tell() % ALIGNMENT))
        start = f.tell()
        for at, data in blobs:
            f.write(b"\0" * (start + at - f.tell()))
            f.write(data)


def _byte_tokens(count):
    """`count` distinct tokens of a byte-level BPE vocabulary: GPT-2's 256
    byte symbols (bytes_to_unicode), then made-up words of printable ASCII
    (which byte-level BPE maps to themselves)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) \
        + list(range(ord("\xae"), ord("\xff") + 1))
    symbols, extra = [], 0
    for b in range(256):
        if b in printable:
            symbols.append(chr(b))
        else:
            symbols.append(chr(256 + extra))
            extra += 1
    tokens = symbols[:count]
    index = 0
    while len(tokens) < count:
        tokens.append("w%d" % index)
        index += 1
    return tokens


def write_gpt2(path, cfg, weights, weight_type="f32"):
    """GPT-2 (Hugging Face names, Conv1D weights stored in x out) as llama.cpp
    reads it: `token_embd`, `position_embd`, `blk.N.{attn_norm, attn_qkv,
    attn_output, ffn_norm, ffn_up, ffn_down}`, `output_norm`; the LM head is
    tied to the token embedding (no `output.weight`). `weight_type` (f32,
    f16, bf16, q8_0, q4_0) stores the 2-D weights but the position
    embedding, as llama.cpp's convert_hf_to_gguf.py --outtype does; Q8_0 and
    Q4_0 quantize each along its input dimension (token_embd [vocab, d] along
    d, attn_qkv [3d, d] along d: the transpose of Conv1D's [in, out]), with
    ggml's reference rounding (block_quant.quantize)."""
    if weight_type not in FILE_TYPES:
        raise ValueError("write_gpt2: weight type %r: one of %s"
                         % (weight_type, ", ".join(FILE_TYPES)))
    d, layers = cfg["n_embd"], cfg["n_layer"]
    vocab = cfg["vocab_size"]
    tensors = {"token_embd.weight": weights["wte.weight"],
               "position_embd.weight": weights["wpe.weight"]}
    for layer in range(layers):
        h, b = "h.%d." % layer, "blk.%d." % layer
        tensors.update({
            b + "attn_norm.weight": weights[h + "ln_1.weight"],
            b + "attn_norm.bias": weights[h + "ln_1.bias"],
            b + "attn_qkv.weight": weights[h + "attn.c_attn.weight"].T,
            b + "attn_qkv.bias": weights[h + "attn.c_attn.bias"],
            b + "attn_output.weight": weights[h + "attn.c_proj.weight"].T,
            b + "attn_output.bias": weights[h + "attn.c_proj.bias"],
            b + "ffn_norm.weight": weights[h + "ln_2.weight"],
            b + "ffn_norm.bias": weights[h + "ln_2.bias"],
            b + "ffn_up.weight": weights[h + "mlp.c_fc.weight"].T,
            b + "ffn_up.bias": weights[h + "mlp.c_fc.bias"],
            b + "ffn_down.weight": weights[h + "mlp.c_proj.weight"].T,
            b + "ffn_down.bias": weights[h + "mlp.c_proj.bias"]})
    tensors["output_norm.weight"] = weights["ln_f.weight"]
    tensors["output_norm.bias"] = weights["ln_f.bias"]
    eos = cfg.get("eos_token_id", vocab - 1)
    metadata = {
        "general.architecture": (STRING, "gpt2"),
        "general.name": (STRING, "gpt2-random"),
        "gpt2.context_length": (UINT32, cfg["n_positions"]),
        "gpt2.embedding_length": (UINT32, d),
        "gpt2.feed_forward_length": (UINT32, cfg.get("n_inner") or 4 * d),
        "gpt2.block_count": (UINT32, layers),
        "gpt2.attention.head_count": (UINT32, cfg["n_head"]),
        "gpt2.attention.layer_norm_epsilon": (FLOAT32, cfg.get("layer_norm_epsilon", 1e-5)),
        "general.file_type": (UINT32, FILE_TYPES[weight_type]),
        "tokenizer.ggml.model": (STRING, "gpt2"),
        "tokenizer.ggml.pre": (STRING, "gpt-2"),
        "tokenizer.ggml.tokens": (ARRAY, (STRING, _byte_tokens(vocab))),
        "tokenizer.ggml.token_type": (ARRAY, (INT32, [1] * vocab)),
        "tokenizer.ggml.merges": (ARRAY, (STRING, [])),
        "tokenizer.ggml.bos_token_id": (UINT32, cfg.get("bos_token_id", eos)),
        "tokenizer.ggml.eos_token_id": (UINT32, eos),
    }
    types = {name: weight_type for name, array in tensors.items()
             if np.ndim(array) == 2 and name != "position_embd.weight"}
    write(path, metadata, tensors, types)


def permute_rope_rows(array, heads):
    """llama.cpp's row order for the q/k projections of architecture `llama`
    (its convert_hf_to_gguf.py `LlamaModel.permute`): in each head of d rows,
    Hugging Face's row i * d/2 + j becomes row 2j + i, so that ggml's rope,
    which rotates adjacent pairs, computes Hugging Face's rotate-half."""
    rows = array.shape[0]
    return (array.reshape(heads, 2, rows // heads // 2, *array.shape[1:])
            .swapaxes(1, 2).reshape(array.shape))


LLAMA_LAYER_NAMES = {
    "input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q",
    "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
    "self_attn.o_proj": "attn_output", "post_attention_layernorm": "ffn_norm",
    "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down"}


def write_llama(path, cfg, weights, weight_type="f32", omit_keys=(), uint_keys=None):
    """A Llama-family model (config.json `cfg`, Hugging Face names) as
    llama.cpp's converter writes it (see the module docstring). Its 2-D
    weights are stored as `weight_type`, quantized along their input
    dimension (nn.Linear's [out, in] rows). Metadata keys in `omit_keys` are
    left out and `uint_keys` (key -> int) set as UINT32 (for the tests of
    what a reader needs)."""
    if weight_type not in FILE_TYPES:
        raise ValueError("write_llama: weight type %r: one of %s"
                         % (weight_type, ", ".join(FILE_TYPES)))
    arch = "qwen2" if cfg["model_type"] == "qwen2" else "llama"
    heads = cfg["num_attention_heads"]
    kv_heads = cfg.get("num_key_value_heads") or heads
    head_dim = cfg.get("head_dim") or cfg["hidden_size"] // heads
    tensors = {}
    for name, value in weights.items():
        if name == "model.embed_tokens.weight":
            tensors["token_embd.weight"] = value
        elif name == "model.norm.weight":
            tensors["output_norm.weight"] = value
        elif name == "lm_head.weight":
            tensors["output.weight"] = value
        else:
            match = re.match(r"model\.layers\.(\d+)\.(.+)\.(weight|bias)$", name)
            if not match:
                continue
            layer, part, kind = match.groups()
            if part not in LLAMA_LAYER_NAMES:
                continue
            if arch == "llama" and part == "self_attn.q_proj":
                value = permute_rope_rows(value, heads)
            if arch == "llama" and part == "self_attn.k_proj":
                value = permute_rope_rows(value, kv_heads)
            tensors["blk.%s.%s.%s" % (layer, LLAMA_LAYER_NAMES[part], kind)] = value
    vocab = cfg["vocab_size"]
    metadata = {
        "general.architecture": (STRING, arch),
        "general.name": (STRING, "%s-random" % cfg["model_type"]),
        arch + ".context_length": (UINT32, cfg["max_position_embeddings"]),
        arch + ".embedding_length": (UINT32, cfg["hidden_size"]),
        arch + ".feed_forward_length": (UINT32, cfg["intermediate_size"]),
        arch + ".block_count": (UINT32, cfg["num_hidden_layers"]),
        arch + ".attention.head_count": (UINT32, heads),
        arch + ".attention.head_count_kv": (UINT32, kv_heads),
        arch + ".attention.key_length": (UINT32, head_dim),
        arch + ".attention.value_length": (UINT32, head_dim),
        arch + ".rope.dimension_count": (UINT32, head_dim),
        arch + ".rope.freq_base": (FLOAT32, cfg.get("rope_theta", 10000.0)),
        arch + ".attention.layer_norm_rms_epsilon": (FLOAT32, cfg.get("rms_norm_eps", 1e-6)),
        "general.file_type": (UINT32, FILE_TYPES[weight_type]),
        "tokenizer.ggml.model": (STRING, "gpt2"),
        "tokenizer.ggml.pre": (STRING, "default"),
        "tokenizer.ggml.tokens": (ARRAY, (STRING, _byte_tokens(vocab))),
        "tokenizer.ggml.token_type": (ARRAY, (INT32, [1] * vocab)),
        "tokenizer.ggml.merges": (ARRAY, (STRING, [])),
        "tokenizer.ggml.bos_token_id": (UINT32, cfg.get("bos_token_id", 0)),
        "tokenizer.ggml.eos_token_id": (UINT32, cfg.get("eos_token_id", vocab - 1)),
    }
    for key in omit_keys:
        metadata.pop(key)
    for key, value in (uint_keys or {}).items():
        metadata[key] = (UINT32, value)
    types = {name: weight_type for name, array in tensors.items() if np.ndim(array) == 2}
    write(path, metadata, tensors, types)
