#!/usr/bin/env python3
"""A Llama-family model of Qwen2.5-0.5B's shape end to end (random weights,
batch 1) against PyTorch run the way its users run it (a cache of past keys
and values for decoding; the logits of the last position only after a
prompt, as Hugging Face's generate asks for them).

Rows: prefill at 128 and 512 tokens; one decode step at context 128 and 512;
generate 128 tokens after a 32-token prompt (tokens/s); compile time of the
module (@prefill); peak resident memory of generation against the weights
file. Medians of a few calls (one timed generation each); PyTorch at 1 and 2
threads, the best counted. For the decode step at the longest context, the
bytes the step must read (the weights in their format and the KV cache of
the kv heads) and the GB/s that makes, against the machine's copy bandwidth.

With --weight-types, one table per weight format (the module imported with
--weight-type); PyTorch runs in f32 throughout. The bf16 and f16 tables bind
a safetensors file with the 2-D weights stored so (no conversion at
binding); q8_0 and q4_0 bind the f32 file, which transformer-run quantizes
at every start (GGUF binding is GPT-2's only), so their peak RSS includes
the f32 pages read.

The weights are normal(0, 0.02) (RMSNorm weights 1 + normal(0, 0.1), the
tied embedding normal(0, 0.01)), written once per config into --workdir and
reused. The module is imported with --max-seq just above the longest
context, not the config's 32768 positions.

Usage: bench/llama.py [--workdir DIR] [--reps N] [--flags "-O3"] [--quick]
                      [--weight-types f32,bf16,f16,q8_0,q4_0]
                      [--config examples/llama/qwen2.5-0.5b.json] [--layers N]
(transformer-translate and transformer-run from build/bin). The script
re-runs itself under the environment of docs/performance.md (no
OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, OMP_WAIT_POLICY=PASSIVE, glibc's malloc
keeping freed memory), for PyTorch in this process and for transformer-run.
"""

import argparse
import hashlib
import json
import os
import struct
import subprocess
import sys

import numpy as np

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import gpt2  # noqa: E402  (its sys.path has test/lib)
import peak  # noqa: E402
import block_quant  # noqa: E402
import llama_reference  # noqa: E402

BIN = gpt2.BIN
CONFIG = os.path.join(ROOT, "examples", "llama", "qwen2.5-0.5b.json")
WEIGHT_TYPES = gpt2.WEIGHT_TYPES
STD, SEED = 0.02, 0
PROMPT = 32

TUNABLES = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736"


def bench_env():
    env = dict(os.environ)
    # OPENBLAS_CORETYPE=Haswell forces AVX2 kernels (half speed here).
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    # Keep freed memory in the process (no page faults on every call) and
    # let idle OpenMP threads sleep (the machine is shared).
    env["GLIBC_TUNABLES"] = TUNABLES
    env["OMP_WAIT_POLICY"] = "PASSIVE"
    return env


def reexec_in_bench_env():
    """glibc and OpenBLAS read their settings when the process starts: run
    this script again under bench_env() unless it already is."""
    env = bench_env()
    if any(os.environ.get(k) != env.get(k) for k in
           ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "GLIBC_TUNABLES", "OMP_WAIT_POLICY")):
        os.execve("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(__file__)]
                  + sys.argv[1:], env)


# --- The weights file ----------------------------------------------------------

SAFETENSORS_DTYPES = {"f32": ("F32", 4), "f16": ("F16", 2), "bf16": ("BF16", 2)}


def write_safetensors(path, entries):
    """Writes `entries` [(name, dtype, shape, produce)] one tensor at a time
    (`produce()` gives its bytes), in safetensors_io's layout, to a temporary
    file renamed into place at the end."""
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, dtype, shape, _ in entries:
        size = int(np.prod(shape)) * SAFETENSORS_DTYPES[dtype][1]
        header[name] = {"dtype": SAFETENSORS_DTYPES[dtype][0], "shape": list(shape),
                        "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for name, _, _, produce in entries:
            data = produce()
            assert len(memoryview(data).cast("B")) == (header[name]["data_offsets"][1]
                                                       - header[name]["data_offsets"][0])
            f.write(data)
    os.replace(path + ".tmp", path)


def read_safetensors(path):
    """{name: read-only float32 memmap} of an f32 safetensors file."""
    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(length))
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        out[name] = np.memmap(path, "<f4", "r", 8 + length + begin,
                              tuple(info["shape"]))
    return out


def write_random_f32(path, cfg):
    """llama_reference.random_weights' distribution with std STD, drawn in
    float32 (a 0.5B model in float64 would take twice the memory and time)."""
    rng = np.random.default_rng(SEED)

    def draw(name, shape):
        value = rng.standard_normal(shape, dtype=np.float32)
        if name.endswith("norm.weight"):
            value = value * np.float32(0.1) + np.float32(1.0)
        else:
            value *= np.float32(STD / 2 if name == llama_reference.EMBED else STD)
        return value

    write_safetensors(path, [(name, "f32", shape, lambda n=name, s=shape: draw(n, s))
                             for name, shape in llama_reference.parameter_shapes(cfg).items()])


def write_converted(path, f32_path, weight_type):
    """The f32 file's weights with the 2-D ones stored as `weight_type`
    (bf16 or f16), the module's type for them: transformer-run then binds
    every tensor without converting it."""
    source = read_safetensors(f32_path)
    io = llama_reference.safetensors_io

    def convert(value):
        if weight_type == "f16":
            return np.ascontiguousarray(value, np.float16)
        return io.to_bf16_bytes(value)

    write_safetensors(path, [
        (name, weight_type if value.ndim == 2 else "f32", value.shape,
         (lambda v=value: convert(v)) if value.ndim == 2 else (lambda v=value: np.array(v)))
        for name, value in source.items()])


def weights_file(args, cfg, weight_type):
    """The weights file to bind for `weight_type`, written once per config
    (keyed by its contents) into the work directory."""
    key = hashlib.sha1(json.dumps([cfg, STD, SEED], sort_keys=True).encode()).hexdigest()[:10]
    f32 = os.path.join(args.workdir, "weights-%s-f32.safetensors" % key)
    if not os.path.exists(f32):
        print("writing %s ..." % f32, flush=True)
        write_random_f32(f32, cfg)
    if weight_type in ("f32",) + block_quant.FORMATS:
        return f32
    path = os.path.join(args.workdir, "weights-%s-%s.safetensors" % (key, weight_type))
    if not os.path.exists(path):
        print("writing %s ..." % path, flush=True)
        write_converted(path, f32, weight_type)
    return path


def step_bytes(cfg, weight_type, context):
    """The bytes a decode step at `context` must read: every weight once in
    its stored format (the tied embedding as the LM head) and the KV cache
    of the kv heads, f32."""
    total = 0
    for shape in llama_reference.parameter_shapes(cfg).values():
        if len(shape) != 2 or weight_type == "f32":
            total += 4 * int(np.prod(shape))
        elif weight_type in block_quant.FORMATS:
            total += block_quant.nbytes(shape, weight_type)
        else:
            total += 2 * int(np.prod(shape))
    cache = (cfg["num_hidden_layers"] * 2 * llama_reference.kv_heads(cfg) * context
             * llama_reference.head_dim(cfg) * 4)
    return total, cache


# --- PyTorch -------------------------------------------------------------------

class TorchLlamaLast(llama_reference.TorchLlama):
    """The reference model with the LM head applied to the last position
    only (as @prefill returns, and as Hugging Face's generate asks for with
    logits_to_keep=1): logits [B, 1, V]."""

    def rms_norm(self, x, name):
        if name == "model.norm":
            x = x[:, -1:]
        return super().rms_norm(x, name)


# --- Ours ----------------------------------------------------------------------

def bench_format(args, cfg, weight_type, lengths, torch_rows, steps, max_seq):
    """Our rows for the module imported with --weight-type=`weight_type`:
    ms in the order of `torch_rows`, compile ms, peak RSS MiB, the weights
    file's MiB and the generated tokens."""
    args.mlir = os.path.join(args.workdir, "llama-%s.mlir" % weight_type)
    subprocess.check_call([os.path.join(BIN, "transformer-translate"), "--import-hf-config",
                           args.config_file, "--weight-type=" + weight_type,
                           "--max-seq=%d" % max_seq, "-o", args.mlir])
    args.weights = weights_file(args, cfg, weight_type)
    times = {}
    for n in lengths:
        path = os.path.join(args.workdir, "p%d.npy" % n)
        # The timed calls' last cache is the one the decode step starts from.
        cache = os.path.join(args.workdir, "cache%d-%s.npy" % (n, weight_type))
        t, compile_ms, _ = gpt2.ours(args, "prefill", ["@" + path], args.reps,
                                     ["--output=", "--output=@" + cache])
        times["prefill %d" % n] = t
        if n == lengths[0]:
            prefill_compile = compile_ms
        t, _, _ = gpt2.ours(args, "decode", ["1x1xi64=11", "i64=%d" % n, "@" + cache],
                            args.reps * 3, ["--output=", "--output="])
        times["decode step at %d" % n] = t
        os.remove(cache)
    path = os.path.join(args.workdir, "prompt%d.npy" % PROMPT)
    tokens = os.path.join(args.workdir, "generated-%s.npy" % weight_type)
    name = "generate %d after %d (ms)" % (steps, PROMPT)
    t, _, rss = gpt2.ours(args, "generate", ["@" + path, "i64=%d" % steps], args.reps,
                          ["--output=@" + tokens])
    times[name] = t
    size = os.path.getsize(args.weights) / 2**20
    return ([times[row] for row, _ in torch_rows], prefill_compile, rss, size,
            np.load(tokens))


def copy_gbps():
    """bench/baselines.py's copy bandwidth (numpy, one thread, bytes read +
    written), or None."""
    try:
        import baselines
        return baselines.copy_bandwidth_gbps()
    except Exception:  # noqa: BLE001 - a missing number, not a failed bench
        return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", default="/tmp/transformer-bench-llama")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--flags", default="")
    parser.add_argument("--quick", action="store_true",
                        help="128 only, 32 generated tokens")
    parser.add_argument("--weight-types", default="f32",
                        help="comma-separated --weight-type values to import and time "
                             "(%s); PyTorch runs f32" % ", ".join(WEIGHT_TYPES))
    parser.add_argument("--config", default=CONFIG, help="a Hugging Face config.json")
    parser.add_argument("--layers", type=int, help="override num_hidden_layers")
    args = parser.parse_args()
    for weight_type in args.weight_types.split(","):
        if weight_type not in WEIGHT_TYPES:
            parser.error("--weight-types: %r is not one of %s"
                         % (weight_type, ", ".join(WEIGHT_TYPES)))
    reexec_in_bench_env()
    os.makedirs(args.workdir, exist_ok=True)
    with open(args.config) as f:
        cfg = json.load(f)
    if args.layers:
        cfg["num_hidden_layers"] = args.layers
    args.config_file = os.path.join(args.workdir, "config.json")
    with open(args.config_file, "w") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
    lengths = [128] if args.quick else [128, 512]
    steps = 32 if args.quick else 128
    max_seq = max(lengths[-1], PROMPT + steps) + 16

    import torch
    torch.set_grad_enabled(False)
    params = sum(int(np.prod(s)) for s in llama_reference.parameter_shapes(cfg).values())
    print("machine: %s, %d cores; PyTorch %s" % (peak.cpu_name(), os.cpu_count() or 1,
                                                 torch.__version__))
    print("model: %s, %d layers, %.0fM parameters (random), KV cache of %d positions"
          % (os.path.basename(args.config), cfg["num_hidden_layers"], params / 1e6, max_seq))
    # PyTorch's own f32 copy of the weights (anonymous memory, as a model
    # loaded by torch holds them).
    f32_path = weights_file(args, cfg, "f32")
    weights = {name: np.array(value) for name, value in read_safetensors(f32_path).items()}
    model = TorchLlamaLast(cfg, weights)
    rng = np.random.default_rng(0)

    def torch_best(fn, reps):
        best = None
        for threads in (1, 2):
            torch.set_num_threads(threads)
            t = gpt2.torch_time(fn, reps)
            best = t if best is None else min(best, t)
        return best

    # PyTorch (f32) once; the same token ids for every format.
    torch_rows = []
    for n in lengths:
        ids = rng.integers(0, cfg["vocab_size"], (1, n)).astype(np.int64)
        np.save(os.path.join(args.workdir, "p%d.npy" % n), ids)
        torch_rows.append(("prefill %d" % n,
                           torch_best(lambda: model(torch.from_numpy(ids)), args.reps)))
        _, past = model(torch.from_numpy(ids))
        torch_rows.append(("decode step at %d" % n,
                           torch_best(lambda: model(torch.tensor([[11]]), past), args.reps)))
    prompt = rng.integers(0, cfg["vocab_size"], (1, PROMPT)).astype(np.int64)
    np.save(os.path.join(args.workdir, "prompt%d.npy" % PROMPT), prompt)
    generated = {}

    def torch_generate():
        generated["tokens"] = model.generate(prompt, steps)

    torch_rows.append(("generate %d after %d (ms)" % (steps, PROMPT),
                       torch_best(torch_generate, 1)))
    bandwidth = copy_gbps()
    if bandwidth:
        print("copy bandwidth: %.1f GB/s (bench/baselines.py: numpy, 1 thread, bytes read "
              "+ written)" % bandwidth)

    results = {}
    context = lengths[-1]
    step = [i for i, (name, _) in enumerate(torch_rows)
            if name == "decode step at %d" % context][0]
    for weight_type in args.weight_types.split(","):
        ours_ms, compile_ms, rss, size, tokens = bench_format(
            args, cfg, weight_type, lengths, torch_rows, steps, max_seq)
        results[weight_type] = ours_ms
        print("\n%-30s %12s %12s %8s" % ("%s %s, batch 1" % (cfg["model_type"], weight_type),
                                         "ours ms", "torch f32", "ratio"))
        for (name, b), a in zip(torch_rows, ours_ms):
            print("%-30s %12.2f %12.2f %8.2f" % (name, a, b, a / b))
        print("generate: %.1f tokens/s (PyTorch f32 %.1f)" % (
            steps * 1e3 / ours_ms[-1], steps * 1e3 / torch_rows[-1][1]))
        print("compile @prefill: %.0f ms" % compile_ms)
        weight_bytes, cache_bytes = step_bytes(cfg, weight_type, context)
        if weight_type in block_quant.FORMATS:
            # The f32 file is quantized at binding: the blocks held are what
            # the peak is over.
            held = weight_bytes / 2**20
            print("peak RSS of generate: %.0f MiB (blocks held %.0f MiB, quantized at "
                  "binding from the f32 file of %.0f MiB; + %.0f MiB)" % (
                      rss, held, size, rss - held))
        else:
            print("peak RSS of generate: %.0f MiB (weights file %.0f MiB, + %.0f MiB)" % (
                rss, size, rss - size))
        moved = weight_bytes + cache_bytes
        torch_bytes = sum(step_bytes(cfg, "f32", context))
        print("decode step at %d reads %.0f MiB (weights %.0f MiB %s + KV cache %.1f MiB): "
              "ours %.1f GB/s, PyTorch %.1f GB/s (of %.0f MiB in f32)" % (
                  context, moved / 2**20, weight_bytes / 2**20, weight_type,
                  cache_bytes / 2**20, moved / ours_ms[step] / 1e6,
                  torch_bytes / torch_rows[step][1] / 1e6, torch_bytes / 2**20))
        expected = generated["tokens"][0, PROMPT:]
        got = tokens[0, PROMPT:] if tokens.shape == generated["tokens"].shape else None
        agree = 0
        if got is not None:
            while agree < len(expected) and got[agree] == expected[agree]:
                agree += 1
        first = min(8, steps)
        print("greedy tokens equal PyTorch's: %s (the first %d of %d generated agree%s)" % (
            "yes" if agree >= first else "no", agree, steps,
            "" if weight_type == "f32" else "; PyTorch's weights are f32"))
    if "f32" in results and len(results) > 1:
        for weight_type, ms in results.items():
            if weight_type != "f32":
                print("%s %s: %.2fx the f32 step" % (torch_rows[step][0], weight_type,
                                                     ms[step] / results["f32"][step]))


if __name__ == "__main__":
    main()
