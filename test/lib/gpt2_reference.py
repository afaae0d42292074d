"""A PyTorch GPT-2 (the math of Hugging Face's GPT2LMHeadModel, written out
here because the `transformers` package is not available), random weights in
the published safetensors layout, and parity checks against the module that
`transformer-translate --import-hf-config` builds.

Usage (DIR gets config.json, model.safetensors, model.mlir and scratch files):
  gpt2_reference.py setup DIR [--layers L --heads H --embd D --vocab V
                               --positions P] [--std S] [--prefix]
  gpt2_reference.py forward DIR        @forward logits vs PyTorch at 1e-4
  gpt2_reference.py generate DIR N B   @generate: PyTorch's greedy tokens for
                                       N steps, batch B (prompt of 5)
  gpt2_reference.py decode DIR N       @prefill then N @decode steps: every
                                       step's logits vs @forward on the prefix
  gpt2_reference.py gguf DIR TYPE      DIR/model-TYPE.gguf in llama.cpp's layout
                                       (TYPE: f32, bf16, f16, q8_0, q4_0)
forward, generate and decode take --weight-type (f32, bf16, f16, q8_0, q4_0):
the reference runs on the weights as the module holds them (rounded to 16
bits, or quantized to ggml's Q8_0 / Q4_0 blocks and dequantized).
Each check prints PASS ... lines, or FAIL ... and exits 1. transformer-run
comes from PATH (lit puts the build's there); TRANSFORMER_RUN_FLAGS adds
flags to every call.
"""

import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import block_quant  # noqa: E402
import reference_ops  # noqa: E402
import safetensors_io  # noqa: E402

TOL = 1e-4


def load_torch():
    import torch
    torch.set_num_threads(1)
    return torch


# --- Weights -----------------------------------------------------------------

def parameter_shapes(cfg):
    d, v, p = cfg["n_embd"], cfg["vocab_size"], cfg["n_positions"]
    f = cfg.get("n_inner") or 4 * d
    shapes = {"wte.weight": (v, d), "wpe.weight": (p, d)}
    for layer in range(cfg["n_layer"]):
        h = "h.%d." % layer
        shapes.update({
            h + "ln_1.weight": (d,), h + "ln_1.bias": (d,),
            h + "attn.c_attn.weight": (d, 3 * d), h + "attn.c_attn.bias": (3 * d,),
            h + "attn.c_proj.weight": (d, d), h + "attn.c_proj.bias": (d,),
            h + "ln_2.weight": (d,), h + "ln_2.bias": (d,),
            h + "mlp.c_fc.weight": (d, f), h + "mlp.c_fc.bias": (f,),
            h + "mlp.c_proj.weight": (f, d), h + "mlp.c_proj.bias": (d,)})
    shapes.update({"ln_f.weight": (d,), "ln_f.bias": (d,)})
    return shapes


def random_weights(cfg, std=0.02, seed=0):
    """GPT-2's initialisation (normal(0, std) matrices), with biases and
    layer norms perturbed too so that every parameter matters; wte a little
    wider so that greedy choices are not near ties."""
    rng = np.random.default_rng(seed)
    weights = {}
    for name, shape in parameter_shapes(cfg).items():
        if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name == "ln_f.weight":
            value = 1.0 + 0.1 * rng.standard_normal(shape)
        elif name.endswith(".bias"):
            value = 0.1 * std / 0.02 * rng.standard_normal(shape) * 0.2
        elif name == "wte.weight":
            value = 5 * std * rng.standard_normal(shape)
        else:
            value = std * rng.standard_normal(shape)
        weights[name] = value.astype(np.float32)
    return weights


def write_model(directory, cfg, weights, prefix=False):
    """config.json and model.safetensors as published (with the causal-mask
    buffers h.N.attn.bias / masked_bias that old checkpoints carry)."""
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    tensors = dict(weights)
    n = cfg["n_positions"]
    for layer in range(cfg["n_layer"]):
        tensors["h.%d.attn.bias" % layer] = np.tril(np.ones((n, n), np.float32))[None, None]
        tensors["h.%d.attn.masked_bias" % layer] = np.array(-1e4, np.float32)
    if prefix:
        tensors = {"transformer." + k: v for k, v in tensors.items()}
    safetensors_io.write(os.path.join(directory, "model.safetensors"), tensors,
                         metadata={"format": "pt"})


# The weight types of --weight-type and of the `gguf` command.
WEIGHT_TYPES = ["f32", "bf16", "f16"] + list(block_quant.FORMATS)

# The Conv1D weights, stored [in, out]; the module (and llama.cpp) quantize
# their transpose [out, in] along `in`.
CONV1D_WEIGHTS = ("attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight",
                  "mlp.c_proj.weight")


def is_conv1d(name):
    return name.endswith(CONV1D_WEIGHTS)


def held_weight(name, value, weight_type):
    """The float32 values of the weight `name` (Hugging Face's name and
    layout) in a module imported with --weight-type=`weight_type`: 1-D
    weights and the position embedding stay f32; the other 2-D weights are
    rounded to bf16 or f16, or quantized to Q8_0 / Q4_0 along their input
    dimension (a Conv1D [in, out] weight as its transpose [out, in], wte
    [vocab, d] along d) and dequantized, as the runner binds them."""
    if weight_type == "f32" or value.ndim != 2 or name == "wpe.weight":
        return value
    if weight_type not in block_quant.FORMATS:
        return reference_ops.round_to(value, weight_type)
    if is_conv1d(name):
        return np.ascontiguousarray(block_quant.round_trip(value.T, weight_type).T)
    return block_quant.round_trip(value, weight_type)


def read_model(directory, weight_type="f32"):
    """The config and the weights, with the 2-D weights but the position
    embedding held as `weight_type` (f32, bf16, f16, q8_0, q4_0; see
    held_weight) as a module imported with --weight-type holds them: the
    reference then runs in float32 on exactly the values the compiled model
    multiplies by."""
    with open(os.path.join(directory, "config.json")) as f:
        cfg = json.load(f)
    with open(os.path.join(directory, "weights.npz"), "rb") as f:
        weights = dict(np.load(f))
    weights = {name: held_weight(name, value, weight_type) for name, value in weights.items()}
    return cfg, weights


# --- The PyTorch model -------------------------------------------------------

class TorchGPT2:
    """GPT2LMHeadModel's forward pass with a cache of past keys and values
    (`past`: per layer (k, v) of [B, H, T, hd]), in float32."""

    def __init__(self, cfg, weights):
        self.torch = torch = load_torch()
        self.cfg = cfg
        self.w = {k: torch.from_numpy(v) for k, v in weights.items()}
        self.eps = cfg.get("layer_norm_epsilon", 1e-5)

    def gelu(self, x):
        return 0.5 * x * (1.0 + self.torch.tanh(
            math.sqrt(2.0 / math.pi) * (x + 0.044715 * self.torch.pow(x, 3.0))))

    def ln(self, x, name):
        return self.torch.nn.functional.layer_norm(
            x, (x.shape[-1],), self.w[name + ".weight"], self.w[name + ".bias"], self.eps)

    def conv1d(self, x, name):
        # transformers' Conv1D: x @ weight + bias with weight [in, out].
        return self.torch.addmm(self.w[name + ".bias"], x.reshape(-1, x.shape[-1]),
                                self.w[name + ".weight"]).reshape(*x.shape[:-1], -1)

    def __call__(self, ids, past=None):
        torch, cfg = self.torch, self.cfg
        b, s = ids.shape
        heads, d = cfg["n_head"], cfg["n_embd"]
        hd = d // heads
        start = 0 if past is None else past[0][0].shape[-2]
        pos = torch.arange(start, start + s)
        x = self.w["wte.weight"][ids] + self.w["wpe.weight"][pos]
        present = []
        for layer in range(cfg["n_layer"]):
            h = "h.%d." % layer
            qkv = self.conv1d(self.ln(x, h + "ln_1"), h + "attn.c_attn")
            q, k, v = (t.view(b, s, heads, hd).permute(0, 2, 1, 3)
                       for t in qkv.split(d, dim=2))
            if past is not None:
                k = torch.cat([past[layer][0], k], dim=-2)
                v = torch.cat([past[layer][1], v], dim=-2)
            present.append((k, v))
            t = k.shape[-2]
            scores = q @ k.transpose(-1, -2) / math.sqrt(hd)
            causal = torch.ones(t, t, dtype=torch.bool).tril()[t - s:t, :t]
            scores = torch.where(causal, scores, torch.tensor(torch.finfo(scores.dtype).min))
            a = torch.softmax(scores, dim=-1) @ v
            a = a.permute(0, 2, 1, 3).reshape(b, s, d)
            x = x + self.conv1d(a, h + "attn.c_proj")
            m = self.gelu(self.conv1d(self.ln(x, h + "ln_2"), h + "mlp.c_fc"))
            x = x + self.conv1d(m, h + "mlp.c_proj")
        logits = self.ln(x, "ln_f") @ self.w["wte.weight"].T
        return logits, present

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


# --- Calls of the compiled module --------------------------------------------

# The module that `run` compiles and the weights it binds, in the model's
# directory (--model, --parameters).
MODEL_FILE = "model.mlir"
PARAMETERS_FILE = "model.safetensors"


def run(directory, entry, inputs, outputs):
    cmd = ["transformer-run", os.path.join(directory, MODEL_FILE), "-e", entry,
           "--parameters=" + os.path.join(directory, PARAMETERS_FILE)]
    cmd += os.environ.get("TRANSFORMER_RUN_FLAGS", "").split()
    for value in inputs:
        if isinstance(value, str):
            cmd.append("--input=" + value)
        else:
            path = os.path.join(directory, "in%d.npy" % len(cmd))
            np.save(path, value)
            cmd.append("--input=@" + path)
    paths = [os.path.join(directory, "%s.out%d.npy" % (entry, i)) for i in range(outputs)]
    cmd += ["--output=@" + p for p in paths]
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        print("FAIL: %s\n%s" % (" ".join(cmd), result.stdout))
        sys.exit(1)
    return [np.load(p) for p in paths]


def compare(what, got, expected, tol=TOL):
    if got.shape != expected.shape:
        print("FAIL %s: shape %s, expected %s" % (what, got.shape, expected.shape))
        sys.exit(1)
    err = float(np.max(np.abs(got.astype(np.float64) - expected))) if got.size else 0.0
    if not err <= tol:
        print("FAIL %s: max |error| %.3g > %g" % (what, err, tol))
        sys.exit(1)
    print("PASS %s: max |error| %.2g" % (what, err))


def prompt_tokens(cfg, batch, length, seed=1):
    return np.random.default_rng(seed).integers(0, cfg["vocab_size"], (batch, length)).astype(np.int64)


# --- Commands ----------------------------------------------------------------

def cmd_setup(args):
    os.makedirs(args.dir, exist_ok=True)
    cfg = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"],
           "n_layer": args.layers, "n_head": args.heads, "n_embd": args.embd,
           "vocab_size": args.vocab, "n_positions": args.positions, "n_ctx": args.positions,
           "n_inner": None, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new",
           "resid_pdrop": 0.1, "embd_pdrop": 0.1, "attn_pdrop": 0.1,
           "bos_token_id": args.vocab - 1, "eos_token_id": args.vocab - 1}
    weights = random_weights(cfg, args.std, args.seed)
    write_model(args.dir, cfg, weights, prefix=args.prefix)
    np.savez(os.path.join(args.dir, "weights.npz"), **weights)


def cmd_gguf(args):
    import gguf_writer
    cfg, weights = read_model(args.dir)
    gguf_writer.write_gpt2(os.path.join(args.dir, "model-%s.gguf" % args.type), cfg,
                           weights, args.type)


def cmd_forward(args):
    cfg, weights = read_model(args.dir, args.weight_type)
    model = TorchGPT2(cfg, weights)
    for batch, length in [(1, 7), (2, 16), (3, 1)]:
        ids = prompt_tokens(cfg, batch, length, seed=batch)
        with model.torch.no_grad():
            expected = model(model.torch.from_numpy(ids))[0].numpy().astype(np.float64)
        (got,) = run(args.dir, "forward", [ids], 1)
        compare("@forward %dx%d logits" % (batch, length), got, expected)


def cmd_generate(args):
    cfg, weights = read_model(args.dir, args.weight_type)
    model = TorchGPT2(cfg, weights)
    prompt = prompt_tokens(cfg, args.batch, 5, seed=10 + args.batch)
    expected = model.generate(prompt, args.steps)
    (got,) = run(args.dir, "generate", [prompt, "i64=%d" % args.steps], 1)
    if got.shape != expected.shape or not np.array_equal(got, expected):
        print("FAIL @generate batch %d: got\n%s\nexpected (PyTorch)\n%s" % (args.batch, got, expected))
        sys.exit(1)
    print("PASS @generate batch %d, %d steps: PyTorch's greedy tokens" % (args.batch, args.steps))


def cmd_decode(args):
    cfg, weights = read_model(args.dir, args.weight_type)
    batch = 2
    tokens = prompt_tokens(cfg, batch, 6 + args.steps, seed=20)
    logits, cache = run(args.dir, "prefill", [tokens[:, :6]], 2)
    (full,) = run(args.dir, "forward", [tokens[:, :6]], 1)
    compare("@prefill logits vs @forward[:, -1]", logits, full[:, -1].astype(np.float64))
    for step in range(args.steps):
        pos = 6 + step
        logits, cache = run(args.dir, "decode", [tokens[:, pos:pos + 1], "i64=%d" % pos, cache], 2)
        (full,) = run(args.dir, "forward", [tokens[:, :pos + 1]], 1)
        compare("@decode at %d vs @forward on the prefix" % pos, logits,
                full[:, -1].astype(np.float64))


def add_run_commands(sub, forward, generate, decode, weight_help):
    """The forward, generate and decode commands that compare the compiled
    module with a reference, each with --weight-type, --model and
    --parameters."""
    for name, fn, positional in (("forward", forward, ()),
                                 ("generate", generate, ("steps", "batch")),
                                 ("decode", decode, ("steps",))):
        s = sub.add_parser(name)
        s.add_argument("dir")
        for arg in positional:
            s.add_argument(arg, type=int)
        s.set_defaults(fn=fn)
        s.add_argument("--weight-type", default="f32", choices=WEIGHT_TYPES,
                       help=weight_help)
        s.add_argument("--model", default="model.mlir", help="the module, in DIR")
        s.add_argument("--parameters", default="model.safetensors",
                       help="the weights, in DIR")


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("setup")
    s.add_argument("dir")
    s.add_argument("--layers", type=int, default=2)
    s.add_argument("--heads", type=int, default=4)
    s.add_argument("--embd", type=int, default=64)
    s.add_argument("--vocab", type=int, default=1000)
    s.add_argument("--positions", type=int, default=128)
    s.add_argument("--std", type=float, default=0.02)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--prefix", action="store_true")
    s.set_defaults(fn=cmd_setup)
    add_run_commands(sub, cmd_forward, cmd_generate, cmd_decode,
                     "the precision the weights are held in (the module's "
                     "--weight-type, or the GGUF file's); q8_0 and q4_0 "
                     "quantize them as ggml's reference does")
    s = sub.add_parser("gguf", help="write DIR/model-TYPE.gguf (llama.cpp's layout)")
    s.add_argument("dir")
    s.add_argument("type", choices=WEIGHT_TYPES)
    s.set_defaults(fn=cmd_gguf)
    args = parser.parse_args()
    global MODEL_FILE, PARAMETERS_FILE
    MODEL_FILE = getattr(args, "model", MODEL_FILE)
    PARAMETERS_FILE = getattr(args, "parameters", PARAMETERS_FILE)
    args.fn(args)


if __name__ == "__main__":
    main()
