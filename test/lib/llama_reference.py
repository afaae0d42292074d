"""A PyTorch Llama-family causal LM (the math of Hugging Face's
LlamaForCausalLM, Qwen2ForCausalLM and MistralForCausalLM, written out here
because the `transformers` package is not available), random weights in the
published safetensors layout, and parity checks against the module that
`transformer-translate --import-hf-config` builds.

The three share one architecture: RMSNorm before attention and MLP, rotary
position embeddings in the rotate-half convention (rope_theta; rope_scaling
none, linear or llama3), grouped-query attention, a SiLU-gated MLP, and an LM
head tied to embed_tokens when tie_word_embeddings is true. They differ in
what config.json turns on: qwen2 always has q/k/v biases; llama has q/k/v/o
biases with attention_bias and MLP biases with mlp_bias; mistral has a
sliding window (a query at i sees the keys i-W < j <= i).

Usage (DIR gets config.json, model.safetensors, weights.npz, model.mlir and
scratch files):
  llama_reference.py setup DIR [--model-type llama|qwen2|mistral]
        [--layers L --hidden D --heads H --kv-heads K --head-dim HD
         --intermediate I --vocab V --positions P --rope-theta T
         --rope-scaling none|linear|linear-legacy|llama3 --tie|--no-tie
         --attention-bias --mlp-bias --sliding-window W --rms-eps E]
        [--std S] [--seed N] [--dtype f32|f16|bf16]
  llama_reference.py forward DIR        @forward logits vs PyTorch at 1e-4
                                        (1x7, 2x16, 3x1, and 1x(W+5) when
                                        the config has a sliding_window W)
  llama_reference.py generate DIR N B   @generate: PyTorch's greedy tokens for
                                        N steps, batch B (prompt of 5)
  llama_reference.py decode DIR N       @prefill then N @decode steps: every
                                        step's logits vs @forward on the prefix
  llama_reference.py selftest DIR       the reference's own consistency checks
                                        on DIR's model (no transformer-run)
  llama_reference.py gguf DIR TYPE [--omit-key KEY] [--set-key KEY=N]
                                        DIR/model-TYPE.gguf as llama.cpp's
                                        converter writes it (gguf_writer)
setup stores every weight in --dtype, and an unused f32
model.layers.N.self_attn.rotary_emb.inv_freq buffer per layer as old
checkpoints carry (the importer must ignore it); weights.npz holds the
float32 values of the weights as stored.
forward, generate and decode take --weight-type (f32, bf16, f16, q8_0, q4_0):
the reference runs on the weights as the module holds them (the 2-D weights
rounded to 16 bits, or quantized to ggml's Q8_0 / Q4_0 blocks along their
input dimension and dequantized; the 1-D weights f32), and --model /
--parameters (the module and the weights, in DIR).
Each check prints PASS ... lines, or FAIL ... and exits 1. transformer-run
comes from PATH (lit puts the build's there); TRANSFORMER_RUN_FLAGS adds
flags to every call.
"""

import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import block_quant  # noqa: E402
import gpt2_reference  # noqa: E402
import reference_ops  # noqa: E402
import safetensors_io  # noqa: E402
from gpt2_reference import TOL, WEIGHT_TYPES, compare, load_torch, prompt_tokens, run  # noqa: E402

MODEL_TYPES = {"llama": "LlamaForCausalLM", "qwen2": "Qwen2ForCausalLM",
               "mistral": "MistralForCausalLM"}

# setup's --dtype: the safetensors dtype and config.json's torch_dtype.
DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}

EMBED = "model.embed_tokens.weight"
LM_HEAD = "lm_head.weight"


# --- The config ----------------------------------------------------------------

def head_dim(cfg):
    return cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]


def kv_heads(cfg):
    return cfg.get("num_key_value_heads") or cfg["num_attention_heads"]


def tied(cfg):
    return cfg.get("tie_word_embeddings", False)


def biases(cfg):
    """Which projections have a bias: (q/k/v, o_proj, the MLP's three)."""
    if cfg["model_type"] == "qwen2":
        return True, False, False
    if cfg["model_type"] == "llama":
        attention = bool(cfg.get("attention_bias", False))
        return attention, attention, bool(cfg.get("mlp_bias", False))
    return False, False, False


def sliding_window(cfg):
    """The window W of every layer (a query at i sees the keys i-W < j <= i),
    or None. Qwen2 windows only some layers, and only with
    use_sliding_window, which its published checkpoints leave false."""
    if cfg["model_type"] == "qwen2" and cfg.get("use_sliding_window"):
        raise SystemExit("qwen2 with use_sliding_window: true is not modelled")
    return cfg.get("sliding_window") if cfg["model_type"] == "mistral" else None


def rope_type(cfg):
    """default, linear or llama3 (rope_scaling's rope_type, or its legacy
    key type)."""
    scaling = cfg.get("rope_scaling")
    if not scaling:
        return "default"
    return scaling.get("rope_type", scaling.get("type"))


def inv_freq(cfg):
    """The rotary frequencies, float32 [head_dim / 2]: angle = position *
    inv_freq[j] for the pair (j, j + head_dim/2). Computed with torch's
    float32 ops in Hugging Face's order, so that the values are HF's to the
    bit."""
    torch = load_torch()
    hd = head_dim(cfg)
    inv = 1.0 / (cfg.get("rope_theta", 10000.0)
                 ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
    kind, scaling = rope_type(cfg), cfg.get("rope_scaling")
    if kind == "linear":
        inv = inv / scaling["factor"]
    elif kind == "llama3":
        inv = llama3_scaling(inv, scaling)
    elif kind != "default":
        raise SystemExit("rope_scaling %r is not modelled" % kind)
    return inv.numpy()


def llama3_scaling(inv, scaling):
    """Llama 3.1's rule: wavelengths longer than original/low_freq_factor
    are stretched by `factor`, those shorter than original/high_freq_factor
    kept, and those between interpolated."""
    torch = load_torch()
    factor, low, high = (scaling["factor"], scaling["low_freq_factor"],
                         scaling["high_freq_factor"])
    original = scaling["original_max_position_embeddings"]
    wavelen = 2 * math.pi / inv
    scaled = torch.where(wavelen > original / low, inv / factor, inv)
    smooth = (original / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < original / high) * ~(wavelen > original / low)
    return torch.where(medium, smoothed, scaled)


# --- Weights -------------------------------------------------------------------

def parameter_shapes(cfg):
    """Every weight the model uses, by Hugging Face's name."""
    d, v, f = cfg["hidden_size"], cfg["vocab_size"], cfg["intermediate_size"]
    q, kv = cfg["num_attention_heads"] * head_dim(cfg), kv_heads(cfg) * head_dim(cfg)
    qkv_bias, o_bias, mlp_bias = biases(cfg)
    shapes = {EMBED: (v, d)}
    for layer in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % layer
        attn, mlp = p + "self_attn.", p + "mlp."
        shapes[p + "input_layernorm.weight"] = (d,)
        for name, rows in (("q_proj", q), ("k_proj", kv), ("v_proj", kv)):
            shapes[attn + name + ".weight"] = (rows, d)
            if qkv_bias:
                shapes[attn + name + ".bias"] = (rows,)
        shapes[attn + "o_proj.weight"] = (d, q)
        if o_bias:
            shapes[attn + "o_proj.bias"] = (d,)
        shapes[p + "post_attention_layernorm.weight"] = (d,)
        for name, shape in (("gate_proj", (f, d)), ("up_proj", (f, d)), ("down_proj", (d, f))):
            shapes[mlp + name + ".weight"] = shape
            if mlp_bias:
                shapes[mlp + name + ".bias"] = shape[:1]
    shapes["model.norm.weight"] = (d,)
    if not tied(cfg):
        shapes[LM_HEAD] = (v, d)
    return shapes


def random_weights(cfg, std=0.1, seed=0):
    """normal(0, std) matrices and biases, RMSNorm weights
    1 + normal(0, 0.1), and embed_tokens normal(0, std / 2). The projections
    are wide enough that attention scores are of order one (the logits
    depend clearly on rotary angles, heads and masks) and that the layers
    outweigh the token's own embedding: with a tied LM head, greedy decoding
    then does not just repeat the last token."""
    rng = np.random.default_rng(seed)
    weights = {}
    for name, shape in parameter_shapes(cfg).items():
        if name.endswith("norm.weight"):
            value = 1.0 + 0.1 * rng.standard_normal(shape)
        elif name == EMBED:
            value = std / 2 * rng.standard_normal(shape)
        else:
            value = std * rng.standard_normal(shape)
        weights[name] = value.astype(np.float32)
    return weights


def stored(value, dtype):
    """The float32 values of `value` once stored as `dtype` (f32, f16, bf16)."""
    return value if dtype == "f32" else reference_ops.round_to(value, dtype)


def safetensors_entry(value, dtype):
    if dtype == "bf16":
        return ("BF16", value.shape, safetensors_io.to_bf16_bytes(value))
    return value.astype(np.float16) if dtype == "f16" else value


def write_model(directory, cfg, weights, dtype):
    """config.json and model.safetensors as published: every weight in
    `dtype`, and the f32 rotary_emb.inv_freq buffers that old checkpoints
    carry (which the model does not read)."""
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
        f.write("\n")
    tensors = {name: safetensors_entry(value, dtype) for name, value in weights.items()}
    for layer in range(cfg["num_hidden_layers"]):
        tensors["model.layers.%d.self_attn.rotary_emb.inv_freq" % layer] = inv_freq(cfg)
    safetensors_io.write(os.path.join(directory, "model.safetensors"), tensors,
                         metadata={"format": "pt"})


def held_weight(value, weight_type):
    """The float32 values of a weight in a module imported with
    --weight-type=`weight_type`: 1-D weights stay f32; 2-D weights (all
    [out, in]) are rounded to bf16 or f16, or quantized to Q8_0 / Q4_0 along
    `in` and dequantized, as the runner binds them."""
    if weight_type == "f32" or value.ndim != 2:
        return value
    if weight_type in block_quant.FORMATS:
        return block_quant.round_trip(value, weight_type)
    return reference_ops.round_to(value, weight_type)


def read_config(directory):
    with open(os.path.join(directory, "config.json")) as f:
        cfg = json.load(f)
    if cfg.get("model_type") not in MODEL_TYPES:
        raise SystemExit("model_type %r: not one of %s" % (cfg.get("model_type"),
                                                          ", ".join(MODEL_TYPES)))
    return cfg


def read_model(directory, weight_type="f32"):
    """The config and the weights as a module imported with --weight-type
    holds them (see held_weight): the reference then runs in float32 on
    exactly the values the compiled model multiplies by."""
    cfg = read_config(directory)
    with open(os.path.join(directory, "weights.npz"), "rb") as f:
        weights = dict(np.load(f))
    return cfg, {name: held_weight(value, weight_type) for name, value in weights.items()}


# --- The PyTorch model ---------------------------------------------------------

def visible(start, queries, keys, window=None):
    """[queries, keys] bool: whether the query at absolute position
    start + i sees key j (j <= start + i, and with a window W also
    j > start + i - W)."""
    torch = load_torch()
    i = torch.arange(start, start + queries)[:, None]
    j = torch.arange(keys)[None, :]
    seen = j <= i
    if window is not None:
        seen &= j > i - window
    return seen


def rotate_half(x):
    half = x.shape[-1] // 2
    return load_torch().cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rotary(x, cos, sin):
    """The rotary embedding of x [..., S, hd], rotate-half convention: the
    pair (j, j + hd/2) turns by the angle of frequency j."""
    return x * cos + rotate_half(x) * sin


class TorchLlama:
    """LlamaForCausalLM's forward pass (Qwen2's and Mistral's by their
    config) with a cache of past keys and values (`past`: per layer (k, v)
    of [B, kv_heads, T, head_dim], after the rotary embedding), in float32."""

    def __init__(self, cfg, weights):
        self.torch = torch = load_torch()
        self.cfg = cfg
        self.w = {k: torch.from_numpy(v) for k, v in weights.items()}
        self.heads, self.kv_heads = cfg["num_attention_heads"], kv_heads(cfg)
        self.hd = head_dim(cfg)
        self.window = sliding_window(cfg)
        self.inv_freq = torch.from_numpy(inv_freq(cfg))
        self.eps = cfg.get("rms_norm_eps", 1e-6)
        self.lm_head = self.w[EMBED if tied(cfg) else LM_HEAD]

    def rms_norm(self, x, name):
        variance = x.pow(2).mean(-1, keepdim=True)
        return self.w[name + ".weight"] * (x * self.torch.rsqrt(variance + self.eps))

    def linear(self, x, name):
        return self.torch.nn.functional.linear(x, self.w[name + ".weight"],
                                               self.w.get(name + ".bias"))

    def rotary(self, start, length):
        """cos and sin [length, head_dim] for the positions start.. (each
        angle twice: cat(freqs, freqs))."""
        positions = self.torch.arange(start, start + length).float()
        freqs = positions[:, None] * self.inv_freq[None, :]
        emb = self.torch.cat((freqs, freqs), dim=-1)
        return emb.cos(), emb.sin()

    def attend(self, q, k, v, start):
        """Causal (and windowed) attention of q [B, H, S, hd] at positions
        start.. over k, v [B, K, T, hd]: query head h reads kv head
        h // (H / K), as HF's repeat_kv."""
        torch, group = self.torch, self.heads // self.kv_heads
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-1, -2) * self.hd ** -0.5
        seen = visible(start, q.shape[-2], k.shape[-2], self.window)
        scores = torch.where(seen, scores, torch.tensor(torch.finfo(scores.dtype).min))
        return torch.softmax(scores, dim=-1) @ v

    def __call__(self, ids, past=None):
        torch = self.torch
        b, s = ids.shape
        start = 0 if past is None else past[0][0].shape[-2]
        cos, sin = self.rotary(start, s)
        x = self.w[EMBED][ids]
        present = []
        for layer in range(self.cfg["num_hidden_layers"]):
            p = "model.layers.%d." % layer
            h = self.rms_norm(x, p + "input_layernorm")
            q, k, v = (self.linear(h, p + "self_attn.%s_proj" % name)
                       .view(b, s, -1, self.hd).transpose(1, 2) for name in "qkv")
            q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
            if past is not None:
                k = torch.cat([past[layer][0], k], dim=-2)
                v = torch.cat([past[layer][1], v], dim=-2)
            present.append((k, v))
            a = self.attend(q, k, v, start).transpose(1, 2).reshape(b, s, -1)
            x = x + self.linear(a, p + "self_attn.o_proj")
            h = self.rms_norm(x, p + "post_attention_layernorm")
            gate = torch.nn.functional.silu(self.linear(h, p + "mlp.gate_proj"))
            x = x + self.linear(gate * self.linear(h, p + "mlp.up_proj"), p + "mlp.down_proj")
        logits = torch.nn.functional.linear(self.rms_norm(x, "model.norm"), self.lm_head)
        return logits, present

    def logits(self, ids):
        """The logits of the numpy int64 `ids`, float64 numpy."""
        with self.torch.no_grad():
            return self(self.torch.from_numpy(ids))[0].numpy().astype(np.float64)

    def generate(self, prompt, steps):
        """Greedy decoding with the cache, as model.generate(do_sample=False)."""
        torch = self.torch
        with torch.no_grad():
            ids = torch.from_numpy(prompt)
            logits, past = self(ids)
            out = [ids]
            for i in range(steps):
                tok = logits[:, -1, :].argmax(-1, keepdim=True)
                out.append(tok)
                if i + 1 < steps:
                    logits, past = self(tok, past)
            return torch.cat(out, dim=1).numpy()


# --- Commands ------------------------------------------------------------------

def make_config(args):
    """A config.json as Hugging Face writes it for the model type."""
    rope_scaling = {
        "none": None,
        "linear": {"rope_type": "linear", "factor": 2.0},
        "linear-legacy": {"type": "linear", "factor": 2.0},
        "llama3": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                   "high_freq_factor": 4.0,
                   "original_max_position_embeddings": args.positions // 4},
    }[args.rope_scaling]
    cfg = {"architectures": [MODEL_TYPES[args.model_type]], "model_type": args.model_type,
           "vocab_size": args.vocab, "hidden_size": args.hidden,
           "intermediate_size": args.intermediate, "num_hidden_layers": args.layers,
           "num_attention_heads": args.heads, "num_key_value_heads": args.kv_heads,
           "hidden_act": "silu", "max_position_embeddings": args.positions,
           "initializer_range": args.std, "rms_norm_eps": args.rms_eps,
           "rope_theta": args.rope_theta, "rope_scaling": rope_scaling,
           "tie_word_embeddings": args.tie, "attention_dropout": 0.0, "use_cache": True,
           "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": DTYPES[args.dtype]}
    if args.head_dim is not None:
        cfg["head_dim"] = args.head_dim
    if args.model_type == "llama":
        cfg.update({"attention_bias": args.attention_bias, "mlp_bias": args.mlp_bias,
                    "pretraining_tp": 1})
    elif args.model_type == "qwen2":
        # As Qwen2.5's: a window that use_sliding_window leaves off.
        cfg.update({"use_sliding_window": False, "max_window_layers": args.layers,
                    "sliding_window": args.sliding_window or args.positions})
    else:
        cfg["sliding_window"] = args.sliding_window
    return cfg


def check_setup_args(parser, args):
    if args.rms_eps is None:
        args.rms_eps = 1e-6 if args.model_type == "qwen2" else 1e-5
    if args.heads % args.kv_heads:
        parser.error("--heads must be a multiple of --kv-heads")
    if args.head_dim is None and args.hidden % args.heads:
        parser.error("--hidden must be a multiple of --heads (or give --head-dim)")
    if (args.head_dim or args.hidden // args.heads) % 2:
        parser.error("the head dimension must be even")
    if args.model_type != "llama" and (args.attention_bias or args.mlp_bias):
        parser.error("--attention-bias and --mlp-bias are llama's")
    if args.model_type == "llama" and args.sliding_window is not None:
        parser.error("--sliding-window is mistral's (or qwen2's, unused)")


def cmd_setup(args):
    os.makedirs(args.dir, exist_ok=True)
    cfg = make_config(args)
    weights = {name: stored(value, args.dtype)
               for name, value in random_weights(cfg, args.std, args.seed).items()}
    write_model(args.dir, cfg, weights, args.dtype)
    np.savez(os.path.join(args.dir, "weights.npz"), **weights)


def forward_cases(cfg):
    """(batch, length) of the @forward checks: with a sliding_window W, also
    a prompt longer than it."""
    cases = [(1, 7), (2, 16), (3, 1)]
    window = cfg.get("sliding_window")
    if window is not None and window + 5 <= cfg["max_position_embeddings"]:
        cases.append((1, window + 5))
    return cases


def cmd_gguf(args):
    import gguf_writer
    cfg = read_config(args.dir)
    with open(os.path.join(args.dir, "weights.npz"), "rb") as f:
        weights = dict(np.load(f))
    gguf_writer.write_llama(os.path.join(args.dir, "model-%s.gguf" % args.type), cfg,
                            weights, args.type, omit_keys=args.omit_key,
                            uint_keys=dict((k, int(v)) for k, v in
                                           (kv.split("=", 1) for kv in args.set_key)))


def cmd_forward(args):
    cfg, weights = read_model(args.dir, args.weight_type)
    model = TorchLlama(cfg, weights)
    for batch, length in forward_cases(cfg):
        ids = prompt_tokens(cfg, batch, length, seed=batch)
        (got,) = run(args.dir, "forward", [ids], 1)
        compare("@forward %dx%d logits" % (batch, length), got, model.logits(ids))


def cmd_generate(args):
    cfg, weights = read_model(args.dir, args.weight_type)
    model = TorchLlama(cfg, weights)
    prompt = prompt_tokens(cfg, args.batch, 5, seed=10 + args.batch)
    expected = model.generate(prompt, args.steps)
    (got,) = run(args.dir, "generate", [prompt, "i64=%d" % args.steps], 1)
    if got.shape != expected.shape or not np.array_equal(got, expected):
        print("FAIL @generate batch %d: got\n%s\nexpected (PyTorch)\n%s"
              % (args.batch, got, expected))
        sys.exit(1)
    print("PASS @generate batch %d, %d steps: PyTorch's greedy tokens" % (args.batch, args.steps))


def cmd_decode(args):
    """Compares the compiled module with itself (@forward is checked against
    PyTorch by `forward`), so the weight type only has to be the module's."""
    cfg = read_config(args.dir)
    tokens = prompt_tokens(cfg, 2, 6 + args.steps, seed=20)
    logits, cache = run(args.dir, "prefill", [tokens[:, :6]], 2)
    (full,) = run(args.dir, "forward", [tokens[:, :6]], 1)
    compare("@prefill logits vs @forward[:, -1]", logits, full[:, -1].astype(np.float64))
    for step in range(args.steps):
        pos = 6 + step
        logits, cache = run(args.dir, "decode", [tokens[:, pos:pos + 1], "i64=%d" % pos, cache], 2)
        (full,) = run(args.dir, "forward", [tokens[:, :pos + 1]], 1)
        compare("@decode at %d vs @forward on the prefix" % pos, logits,
                full[:, -1].astype(np.float64))


# --- selftest: the reference checked against other formulations --------------

def explicit_mask(start, queries, keys, window):
    """visible(), written out key by key."""
    seen = np.zeros((queries, keys), bool)
    for i in range(queries):
        for j in range(keys):
            seen[i, j] = j <= start + i and (window is None or j > start + i - window)
    return seen


def explicit_attention(q, k, v, start, window):
    """attend() one query head at a time, in float64 numpy."""
    heads, kv = q.shape[1], k.shape[1]
    mask = np.where(explicit_mask(start, q.shape[2], k.shape[2], window), 0.0, -np.inf)
    out = np.zeros(q.shape)
    for h in range(heads):
        kv_head = h // (heads // kv)
        out[:, h] = reference_ops.attention(q[:, h], k[:, kv_head], v[:, kv_head], mask=mask)
    return out


def selftest_gqa(model):
    """(a) attend(), GQA through repeat_interleave, vs a loop over the query
    heads, with the model's window if it has one."""
    torch = model.torch
    gen = torch.Generator().manual_seed(0)
    start, sq = 3, (model.window or 4) + 6
    q = torch.randn(2, model.heads, sq, model.hd, generator=gen)
    k, v = (torch.randn(2, model.kv_heads, start + sq, model.hd, generator=gen) for _ in "kv")
    expected = explicit_attention(q.numpy(), k.numpy(), v.numpy(), start, model.window)
    with torch.no_grad():
        got = model.attend(q, k, v, start).numpy()
    compare("selftest (a) GQA %d query heads on %d kv heads (window %s) vs a loop over heads"
            % (model.heads, model.kv_heads, model.window), got, expected, 1e-5)


def selftest_window(window):
    """(d) visible() vs the key-by-key mask, for a few windows and query
    offsets."""
    windows = sorted({1, 3, 5, window or 5})
    for w in windows:
        for start, sq, sk in ((0, 9, 9), (4, 5, 9), (8, 1, 9), (0, w + 5, w + 5)):
            seen = visible(start, sq, sk, w).numpy()
            if not np.array_equal(seen, explicit_mask(start, sq, sk, w)):
                print("FAIL selftest (d) window %d, queries %d.. of %d keys" % (w, start, sk))
                sys.exit(1)
    print("PASS selftest (d) the windows %s mask exactly the keys i-W < j <= i" % windows)


def selftest_rope(model):
    """(b) rotate-half on x equals rotating the complex numbers
    x[j] + i x[j + hd/2] by position * inv_freq[j], in float64."""
    torch, half = model.torch, model.hd // 2
    x = torch.randn(2, model.heads, 9, model.hd, generator=torch.Generator().manual_seed(1))
    start = 40
    cos, sin = model.rotary(start, x.shape[-2])
    got = apply_rotary(x, cos, sin).numpy()
    xs = x.numpy().astype(np.float64)
    positions = np.arange(start, start + x.shape[-2], dtype=np.float64)
    angles = positions[:, None] * model.inv_freq.numpy().astype(np.float64)
    z = (xs[..., :half] + 1j * xs[..., half:]) * np.exp(1j * angles)
    expected = np.concatenate([z.real, z.imag], axis=-1)
    compare("selftest (b) rotate-half rope vs complex rotation of pairs (j, j+%d)" % half,
            got, expected, 1e-5)


def selftest_cache(model, length):
    """(c) prefill then one token at a time gives the full forward's
    logits."""
    torch = model.torch
    ids = torch.from_numpy(prompt_tokens(model.cfg, 2, length, seed=3))
    with torch.no_grad():
        full = model(ids)[0].numpy()
        logits, past = model(ids[:, :5])
        steps = [logits]
        for pos in range(5, length):
            logits, past = model(ids[:, pos:pos + 1], past)
            steps.append(logits)
    compare("selftest (c) KV cache: prefill 5 then %d steps vs the full forward"
            % (length - 5), torch.cat(steps, dim=1).numpy(), full.astype(np.float64), 1e-5)


def selftest_llama3_scaling():
    """(e) inv_freq under Llama 3.1's published scaling (head_dim 128, theta
    500000, factor 8, low 1, high 4, original 8192) vs the rule in float64,
    regime by regime, to a few float32 ulps; and linear scaling, by either
    key, is inv_freq / factor."""
    scaling = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
               "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
    cfg = {"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000.0,
           "rope_scaling": scaling}
    got = inv_freq(cfg).astype(np.float64)
    base = 1.0 / 500000.0 ** (np.arange(0, 128, 2) / 128)
    wavelen = 2 * np.pi / base
    smooth = (8192 / wavelen - 1.0) / (4.0 - 1.0)
    regimes = [("unscaled, wavelength < 2048", wavelen < 2048, base),
               ("divided by 8, wavelength > 8192", wavelen > 8192, base / 8),
               ("interpolated", (wavelen >= 2048) & (wavelen <= 8192),
                (1 - smooth) * base / 8 + smooth * base)]
    for what, where, expected in regimes:
        compare("selftest (e) llama3 rope scaling, %d frequencies %s (relative)"
                % (where.sum(), what), got[where] / expected[where], np.ones(where.sum()),
                8 * 2.0 ** -24)
    default = inv_freq(dict(cfg, rope_scaling=None))
    for scaling in ({"rope_type": "linear", "factor": 2.0}, {"type": "linear", "factor": 2.0}):
        compare("selftest (e) rope_scaling %s is inv_freq / 2" % json.dumps(scaling),
                inv_freq(dict(cfg, rope_scaling=scaling)), default / np.float32(2), 0.0)


def interleaved_pairs(cfg, weights):
    """The weights on which the rotate-half model computes what a model
    rotating the pairs (2j, 2j+1) computes on `weights`: q_proj and k_proj
    rows permuted within each head."""
    hd = head_dim(cfg)
    order = np.concatenate([np.arange(0, hd, 2), np.arange(1, hd, 2)])
    out = dict(weights)
    for name, value in weights.items():
        if ".q_proj." in name or ".k_proj." in name:
            heads = value.shape[0] // hd
            rows = (np.arange(heads)[:, None] * hd + order[None, :]).reshape(-1)
            out[name] = value[rows]
    return out


def kv_by_modulo(cfg, weights):
    """A multi-head config and weights computing what a model in which query
    head h reads kv head h % K (instead of h // (H/K)) computes."""
    hd, heads, kv = head_dim(cfg), cfg["num_attention_heads"], kv_heads(cfg)
    rows = (np.arange(heads)[:, None] % kv * hd + np.arange(hd)[None, :]).reshape(-1)
    out = {name: value[rows] if ".k_proj." in name or ".v_proj." in name else value
           for name, value in weights.items()}
    return dict(cfg, num_key_value_heads=heads), out


def mistakes(cfg, weights):
    """(what, config, weights) of plausible importer mistakes that apply to
    this model."""
    found = [("rotating the pairs (2j, 2j+1)", cfg, interleaved_pairs(cfg, weights))]
    if 1 < kv_heads(cfg) < cfg["num_attention_heads"]:
        found.append(("query head h reading kv head h % K",) + kv_by_modulo(cfg, weights))
    if rope_type(cfg) != "default":
        found.append(("ignoring rope_scaling", dict(cfg, rope_scaling=None), weights))
    if sliding_window(cfg) is not None:
        found.append(("ignoring sliding_window", dict(cfg, sliding_window=None), weights))
    if any(biases(cfg)):
        found.append(("dropping the biases", cfg,
                      {k: v for k, v in weights.items() if not k.endswith(".bias")}))
    return found


def selftest_sensitivity(model, weights, length):
    """(f) the model's weights are such that each plausible importer mistake
    moves the logits well past the parity tolerance."""
    ids = prompt_tokens(model.cfg, 2, length, seed=2)
    right = model.logits(ids)
    for what, cfg, changed in mistakes(model.cfg, weights):
        moved = float(np.max(np.abs(TorchLlama(cfg, changed).logits(ids) - right)))
        if not moved > 100 * TOL:
            print("FAIL selftest (f) %s moves the logits by only %.3g" % (what, moved))
            sys.exit(1)
        print("PASS selftest (f) %s moves the 2x%d logits by %.2g" % (what, length, moved))


def cmd_selftest(args):
    cfg, weights = read_model(args.dir)
    model = TorchLlama(cfg, weights)
    length = min(max(16, (model.window or 0) + 5), cfg["max_position_embeddings"])
    selftest_gqa(model)
    selftest_rope(model)
    selftest_cache(model, length)
    selftest_window(model.window)
    selftest_llama3_scaling()
    selftest_sensitivity(model, weights, length)


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("setup")
    s.add_argument("dir")
    s.add_argument("--model-type", default="llama", choices=list(MODEL_TYPES))
    s.add_argument("--layers", type=int, default=2)
    s.add_argument("--hidden", type=int, default=64)
    s.add_argument("--heads", type=int, default=4)
    s.add_argument("--kv-heads", type=int, default=2)
    s.add_argument("--head-dim", type=int, help="written as head_dim (default: none, "
                   "hidden / heads)")
    # A multiple of 32, so that q8_0 / q4_0 can quantize down_proj.
    s.add_argument("--intermediate", type=int, default=192)
    s.add_argument("--vocab", type=int, default=1000)
    s.add_argument("--positions", type=int, default=256)
    s.add_argument("--rope-theta", type=float, default=10000.0)
    s.add_argument("--rope-scaling", default="none",
                   choices=["none", "linear", "linear-legacy", "llama3"],
                   help="linear: factor 2 ({rope_type: linear}; linear-legacy: "
                        "{type: linear}); llama3: factor 8, low 1, high 4, "
                        "original positions / 4")
    s.add_argument("--tie", action=argparse.BooleanOptionalAction, default=False,
                   help="tie_word_embeddings (no lm_head.weight)")
    s.add_argument("--attention-bias", action="store_true", help="llama: q/k/v/o biases")
    s.add_argument("--mlp-bias", action="store_true", help="llama: MLP biases")
    s.add_argument("--sliding-window", type=int,
                   help="mistral: sliding_window (default null); qwen2: "
                        "sliding_window with use_sliding_window false "
                        "(default the positions)")
    s.add_argument("--rms-eps", type=float, help="default 1e-6 for qwen2, 1e-5 otherwise")
    s.add_argument("--std", type=float, default=0.1)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--dtype", default="f32", choices=list(DTYPES),
                   help="how model.safetensors stores every tensor")
    s.set_defaults(fn=cmd_setup)
    gpt2_reference.add_run_commands(
        sub, cmd_forward, cmd_generate, cmd_decode,
        "the precision the module holds the weights in (its --weight-type); "
        "q8_0 and q4_0 quantize them as ggml's reference does")
    s = sub.add_parser("gguf", help="write DIR/model-TYPE.gguf (llama.cpp's layout)")
    s.add_argument("dir")
    s.add_argument("type", choices=WEIGHT_TYPES)
    s.add_argument("--omit-key", action="append", default=[],
                   help="leave this metadata key out")
    s.add_argument("--set-key", action="append", default=[], metavar="KEY=N",
                   help="set this metadata key to the uint32 N")
    s.set_defaults(fn=cmd_gguf)
    s = sub.add_parser("selftest", help="check the reference itself on DIR's model")
    s.add_argument("dir")
    s.set_defaults(fn=cmd_selftest)
    args = parser.parse_args()
    if args.command == "setup":
        check_setup_args(parser, args)
    # `run` (gpt2_reference's) calls the module and weights these name.
    gpt2_reference.MODEL_FILE = getattr(args, "model", gpt2_reference.MODEL_FILE)
    gpt2_reference.PARAMETERS_FILE = getattr(args, "parameters", gpt2_reference.PARAMETERS_FILE)
    args.fn(args)


if __name__ == "__main__":
    main()
