#!/usr/bin/env python3
"""GPT-2 small end to end (random weights, batch 1) against PyTorch run the
way its users run it (a cache of past keys and values for decoding), and
against llama.cpp (f32, flash attention on) with the same weights.

Rows: prefill at 128 and 512 tokens; one decode step at context 128 and 512;
generate 128 tokens after a 32-token prompt (tokens/s); compile time of the
module (@prefill); peak resident memory of generation against the weights
file. Medians of a few calls; PyTorch and llama.cpp at 1 and 2 threads, the
best counted. With --weight-types, one table per weight format (the module
imported with --weight-type, its weights file and llama.cpp's GGUF in that
format); PyTorch runs in f32 throughout. For the block formats q8_0 and
q4_0 (llama.cpp's Q8_0 and Q4_0) our weights file is llama.cpp's GGUF
itself: transformer-run binds its blocks as they are.

Usage: bench/gpt2.py [--workdir DIR] [--reps N] [--flags "-O3"] [--quick]
                     [--weight-types f32,bf16,f16,q8_0,q4_0]
                     [--llama-bench PATH | --llama-bench auto]
(transformer-translate and transformer-run from build/bin; `auto` builds
llama-bench with bench/llama-cpp.sh, from npm's node-llama-cpp source).
"""

import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "lib"))
import block_quant  # noqa: E402
import gguf_writer  # noqa: E402
import gpt2_reference  # noqa: E402

BIN = os.path.join(ROOT, "build", "bin")
CONFIG = os.path.join(ROOT, "examples", "gpt2", "gpt2-small.json")


def ours(args, entry, inputs, reps, extra=()):
    cmd = ["/usr/bin/time", "-v", os.path.join(BIN, "transformer-run"), args.mlir, "-e", entry,
           "--parameters=" + args.weights, "--benchmark-repetitions=%d" % reps,
           "--warmup=1"] + args.flags.split() + list(extra)
    cmd += ["--input=" + i for i in inputs]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if out.returncode != 0:
        sys.exit("transformer-run failed:\n" + out.stdout[-2000:])
    median = float(re.search(r"median ([0-9.]+) ms", out.stdout).group(1))
    compile_ms = float(re.search(r"compile: ([0-9.]+) ms", out.stdout).group(1))
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", out.stdout).group(1))
    return median, compile_ms, rss_kb / 1024.0


def torch_time(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times))


def llama_cpp(args, weights, cfg, lengths, weight_type="f32"):
    """llama-bench's times in ms for the rows of the table (best of 1 and 2
    threads) with the weights stored as `weight_type`: prefill n, a decode
    step at context n (the mean of 16 steps after a cache of n), generate
    128 after a prompt of 32."""
    import json
    gguf = os.path.join(args.workdir, "gpt2-%s.gguf" % weight_type)
    if not os.path.exists(gguf):
        gguf_writer.write_gpt2(gguf, cfg, weights, weight_type)
    common = [args.llama_bench, "-m", gguf, "-t", "1,2", "-fa", "1", "-o", "json",
              "-r", str(max(args.reps, 3))]

    class Failed(Exception):
        pass

    def run(extra):
        out = subprocess.run(common + extra, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        if out.returncode != 0:
            # llama.cpp's own bug (e.g. its AMX kernels dying of SIGILL on
            # some VMs) costs its column for this format, not the table.
            print("llama-bench %s failed (exit %d), no llama.cpp column: %s" % (
                weight_type, out.returncode, out.stderr.strip()[-300:]))
            raise Failed()
        return json.loads(out.stdout)

    try:
        return llama_runs(run, ",".join(str(n) for n in lengths))
    except Failed:
        return {}


def llama_runs(run, sizes):
    """The three llama-bench runs behind llama_cpp's rows (`run` takes the
    arguments that differ and returns llama-bench's JSON records)."""
    times = {}
    def best(key, ms):
        times[key] = min(times.get(key, 1e30), ms)

    # Each run names its tests alone (-p 0 / -n 0 turn the defaults off).
    for r in run(["-p", sizes, "-n", "0"]):
        if r["n_gen"] == 0:
            best("prefill %d" % r["n_prompt"], r["avg_ns"] / 1e6)
    for r in run(["-p", "0", "-n", "16", "-d", sizes]):
        if r["n_prompt"] == 0 and r["n_gen"] == 16:
            best("decode step at %d" % r["n_depth"], r["avg_ns"] / 1e6 / 16)
    for r in run(["-p", "0", "-n", "0", "-pg", "32,128"]):
        if r["n_prompt"] == 32 and r["n_gen"] == 128:
            best("generate 128 after 32 (ms)", r["avg_ns"] / 1e6)
    return times


WEIGHT_TYPES = ("f32", "bf16", "f16") + block_quant.FORMATS


def write_weights(path, weights, weight_type):
    """The safetensors file of `weights` with the 2-D weights but the
    position embedding stored as `weight_type`, the module's type for them:
    transformer-run then binds every tensor without converting it."""
    if os.path.exists(path):
        return
    io = gpt2_reference.safetensors_io
    tensors = {}
    for name, value in weights.items():
        if value.ndim != 2 or name == "wpe.weight" or weight_type == "f32":
            tensors[name] = value
        elif weight_type == "f16":
            tensors[name] = value.astype(np.float16)
        else:
            tensors[name] = ("BF16", list(value.shape), io.to_bf16_bytes(value))
    io.write(path, tensors)


def bench_format(args, cfg, weight_type, lengths, torch_rows):
    """Our rows for the module imported with --weight-type=`weight_type`:
    (name, ms) in the order of `torch_rows`, compile ms, peak RSS MiB and
    the weights file's MiB."""
    args.mlir = os.path.join(args.workdir, "gpt2-%s.mlir" % weight_type)
    subprocess.check_call([os.path.join(BIN, "transformer-translate"), "--import-hf-config",
                           CONFIG, "--weight-type=" + weight_type, "-o", args.mlir])
    if weight_type in block_quant.FORMATS:
        # The block formats bind llama.cpp's own GGUF file: its blocks as
        # they are, with no conversion (a safetensors file would be
        # quantized at every start).
        args.weights = os.path.join(args.workdir, "gpt2-%s.gguf" % weight_type)
        if not os.path.exists(args.weights):
            gguf_writer.write_gpt2(args.weights, cfg, gpt2_reference.random_weights(cfg),
                                   weight_type)
    else:
        args.weights = os.path.join(args.workdir, "gpt2-%s.safetensors" % weight_type)
        write_weights(args.weights, gpt2_reference.random_weights(cfg), weight_type)
    times = {}
    for n in lengths:
        path = os.path.join(args.workdir, "p%d.npy" % n)
        t, compile_ms, _ = ours(args, "prefill", ["@" + path], args.reps, ["--output=", "--output="])
        times["prefill %d" % n] = t
        if n == lengths[0]:
            prefill_compile = compile_ms
        # A cache filled by prefill, then one decode step at position n.
        cache = os.path.join(args.workdir, "cache%d-%s.npy" % (n, weight_type))
        subprocess.check_call([os.path.join(BIN, "transformer-run"), args.mlir, "-e", "prefill",
                               "--parameters=" + args.weights, "--input=@" + path,
                               "--output=", "--output=@" + cache] + args.flags.split(),
                              stdout=subprocess.DEVNULL)
        t, _, _ = ours(args, "decode", ["1x1xi64=11", "i64=%d" % n, "@" + cache], args.reps * 3,
                       ["--output=", "--output="])
        times["decode step at %d" % n] = t
    path = os.path.join(args.workdir, "prompt32.npy")
    # The median of --reps calls: one call caught a slow minute of a shared
    # machine as often as not (1.8x on a Zen 4 VM).
    t, _, rss = ours(args, "generate", ["@" + path, "i64=128"], args.reps, ["--output="])
    times["generate 128 after 32 (ms)"] = t
    size = os.path.getsize(args.weights) / 2**20
    return [times[name] for name, _ in torch_rows], prefill_compile, rss, size


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", default="/tmp/transformer-bench-gpt2")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--flags", default="")
    parser.add_argument("--quick", action="store_true", help="128 only")
    parser.add_argument("--weight-types", default="f32",
                        help="comma-separated --weight-type values to import and time "
                             "(%s); PyTorch runs f32" % ", ".join(WEIGHT_TYPES))
    parser.add_argument("--llama-bench", default="",
                        help="llama.cpp's llama-bench for a baseline column ('auto' builds it)")
    args = parser.parse_args()
    for weight_type in args.weight_types.split(","):
        if weight_type not in WEIGHT_TYPES:
            parser.error("--weight-types: %r is not one of %s"
                         % (weight_type, ", ".join(WEIGHT_TYPES)))
    if args.llama_bench == "auto":
        args.llama_bench = subprocess.check_output(
            ["bash", os.path.join(ROOT, "bench", "llama-cpp.sh")], text=True).strip()
    os.makedirs(args.workdir, exist_ok=True)
    import json
    cfg = json.load(open(CONFIG))
    import torch
    torch.set_grad_enabled(False)
    weights = gpt2_reference.random_weights(cfg)
    model = gpt2_reference.TorchGPT2(cfg, weights)
    rng = np.random.default_rng(0)
    lengths = [128] if args.quick else [128, 512]

    def torch_best(fn):
        best = None
        for threads in (1, 2):
            torch.set_num_threads(threads)
            t = torch_time(fn, args.reps)
            best = t if best is None else min(best, t)
        return best

    # PyTorch (f32) once; the same token ids for every format.
    torch_rows = []
    for n in lengths:
        ids = rng.integers(0, cfg["vocab_size"], (1, n)).astype(np.int64)
        np.save(os.path.join(args.workdir, "p%d.npy" % n), ids)
        torch_rows.append(("prefill %d" % n, torch_best(lambda: model(torch.from_numpy(ids)))))
        _, past = model(torch.from_numpy(ids))
        torch_rows.append(("decode step at %d" % n,
                           torch_best(lambda: model(torch.tensor([[11]]), past))))
    prompt = rng.integers(0, cfg["vocab_size"], (1, 32)).astype(np.int64)
    np.save(os.path.join(args.workdir, "prompt32.npy"), prompt)
    torch_rows.append(("generate 128 after 32 (ms)",
                       torch_best(lambda: model.generate(prompt, 128))))

    results = {}
    for weight_type in args.weight_types.split(","):
        ours_ms, compile_ms, rss, size = bench_format(args, cfg, weight_type, lengths, torch_rows)
        llama = llama_cpp(args, weights, cfg, lengths, weight_type) if args.llama_bench else {}
        results[weight_type] = ours_ms
        print("%-30s %12s %12s %8s %12s %8s" % (
            "GPT-2 small %s, batch 1" % weight_type, "ours ms", "torch f32", "ratio",
            "llama.cpp ms", "ratio"))
        for (name, b), a in zip(torch_rows, ours_ms):
            c = llama.get(name)
            print("%-30s %12.2f %12.2f %8.2f %12s %8s" % (
                name, a, b, a / b, "%.2f" % c if c else "-", "%.2f" % (a / c) if c else "-"))
        print("generate: %.1f tokens/s (PyTorch f32 %.1f%s)" % (
            128e3 / ours_ms[-1], 128e3 / torch_rows[-1][1],
            ", llama.cpp %s %.1f" % (weight_type, 128e3 / llama["generate 128 after 32 (ms)"])
            if llama else ""))
        print("compile @prefill: %.0f ms" % compile_ms)
        print("peak RSS of generate: %.0f MiB (weights file %.0f MiB, + %.0f MiB)\n" % (
            rss, size, rss - size))
    if "f32" in results and len(results) > 1:
        step = [i for i, (name, _) in enumerate(torch_rows) if name.startswith("decode")][-1]
        for weight_type, ms in results.items():
            if weight_type != "f32":
                print("%s %s: %.2fx the f32 step" % (torch_rows[step][0], weight_type,
                                                     ms[step] / results["f32"][step]))


if __name__ == "__main__":
    main()
