"""Side-by-side benchmark: our compiled code against numpy and PyTorch.

For each workload of workloads.py it JIT-compiles and times `@main` with
transformer-run, times the numpy and PyTorch versions with 1 and 2 threads
(each library in a fresh process with a clean environment), checks our
result against numpy's, and prints one table: median ms after warm-up,
GFLOP/s, % of the machine's peak, GB/s for memory-bound work, and our time
divided by each baseline's (below 1: we are faster).

Usage (bench/run.sh installs the baselines and builds first):
  bench.py [--quick] [--json FILE] [--only SUBSTRING] [--build DIR]
           [--baselines numpy,torch] [--threads 1,2]
"""

import argparse
import atexit
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peak  # noqa: E402
import workloads  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def baseline_env(threads):
    """A clean environment for the baselines (docs/performance.md)."""
    env = dict(os.environ)
    # OPENBLAS_CORETYPE=Haswell forces AVX2 kernels (half speed here).
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    return env


def target_vector_bits(tool, flags):
    """The vector width transformer-run builds for with `flags` (512, 256
    or 128), from --print-target; None when it does not say."""
    out = subprocess.run([tool] + flags + ["--print-target"],
                         capture_output=True, text=True).stdout
    match = re.search(r"vector registers:\s*\d+ x (\d+) bits", out)
    return int(match.group(1)) if match else None


def common_env(env):
    # Keep freed memory in the process (no page faults on every call) and
    # let idle OpenMP threads sleep (the machine is shared).
    env["GLIBC_TUNABLES"] = ("glibc.malloc.mmap_max=0:"
                             "glibc.malloc.trim_threshold=68719476736")
    env["OMP_WAIT_POLICY"] = "PASSIVE"
    return env


def run_ours(tool, workdir, index, w, quick, extra_flags):
    """Compiles and times @main; returns a dict or {"error": ...}."""
    entry = index[w.name]
    out_path = os.path.join(workdir, entry["id"] + ".ours.npy")
    base = [tool, entry["mlir"]] + ["--input=@" + p for p in entry["inputs"]]
    base += ["--output=@" + out_path] + extra_flags
    env = common_env(dict(os.environ))

    def once(reps, warmup):
        start = time.perf_counter()
        proc = subprocess.run(
            base + ["--benchmark-repetitions=%d" % reps, "--warmup=%d" % warmup],
            capture_output=True, text=True, env=env)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            lines = (proc.stderr or proc.stdout).strip().splitlines()
            return {"error": lines[-1] if lines else "exit %d" % proc.returncode}
        compile_ms = re.search(r"compile: ([0-9.]+) ms", proc.stdout)
        median = re.search(r"median ([0-9.]+) ms", proc.stdout)
        fastest = re.search(r"min ([0-9.]+) ms", proc.stdout)
        if not compile_ms or not median or not fastest:
            return {"error": "unexpected transformer-run output"}
        return {"median_ms": float(median.group(1)), "reps": reps,
                "spread": float(median.group(1)) / max(
                    float(fastest.group(1)), 1e-9),
                "compile_ms": float(compile_ms.group(1)), "wall_s": wall}

    # One call to size the run, then enough calls for about a second.
    first = once(1, 0)
    if "error" in first or quick:
        result = first
    else:
        t = first["median_ms"] * 1e-3
        if t > 2.0:
            result = first
        else:
            # Small kernels: up to 1000 calls (at least 200 below 5 ms).
            reps = int(max(3, min(1000, 1.0 / max(t, 1e-6))))
            result = once(reps, max(1, reps // 10))
            result["compile_ms"] = first["compile_ms"]
    if "error" not in result:
        result["max_abs_error"] = check_result(w, entry, out_path)
    return result


def check_result(w, entry, out_path):
    """Largest |ours - numpy(float64)| relative to the reference's scale."""
    arrays = [np.load(p).astype(np.float64) for p in entry["inputs"]]
    expected = w.numpy_fn(*arrays)
    ours = np.load(out_path).astype(np.float64)
    if ours.shape != expected.shape:
        return float("inf")
    scale = max(1.0, float(np.max(np.abs(expected))))
    return float(np.max(np.abs(ours - expected))) / scale


def run_baseline(library, threads, workdir, quick):
    cmd = [sys.executable, os.path.join(ROOT, "bench", "baselines.py"),
           library, str(threads), workdir] + (["--quick"] if quick else [])
    proc = subprocess.run(cmd, capture_output=True, text=True,
                          env=common_env(baseline_env(threads)))
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else "failed"}
    return json.loads(proc.stdout)


def merge_rounds(results):
    """One result from the rounds' results: the first, with the median of
    their medians (and each round's in `rounds_ms`); an error if any round
    failed."""
    for r in results:
        if "error" in r:
            return r
    merged = dict(results[0])
    if len(results) > 1:
        times = [r["median_ms"] for r in results]
        merged["median_ms"] = statistics.median(times)
        merged["rounds_ms"] = times
        merged["process_spread"] = max(times) / max(min(times), 1e-9)
        if all("spread" in r for r in results):
            merged["spread"] = max(r["spread"] for r in results)
    return merged


def merge_baseline_rounds(results, suite):
    """merge_rounds for a baseline's rounds, per workload."""
    for r in results:
        if "error" in r:
            return r
    merged = dict(results[0])
    for w in suite:
        merged[w.name] = merge_rounds([r[w.name] for r in results])
    return merged


def fmt_ms(ms):
    if ms is None:
        return "-"
    return "%.3f" % ms if ms < 10 else "%.1f" % ms


def spread(result):
    """The median call over the fastest within one process (with --rounds,
    the largest of the rounds')."""
    if "spread" not in result:
        return "-"
    return "%.2f" % result["spread"]


def fmt_ratio(ours, theirs):
    if ours is None or theirs is None:
        return "-"
    return "%.2f" % (ours / theirs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="tiny shapes, one repetition (a smoke test)")
    parser.add_argument("--json", help="also write the results to FILE")
    parser.add_argument("--only", help="run workloads whose name contains it")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--baselines", default="numpy,torch,onnxruntime")
    parser.add_argument("--threads", default="1,2",
                        help="thread counts for the baselines")
    parser.add_argument("--ours-threads", default="1,2",
                        help="thread counts for ours (transformer-run "
                             "--threads); the first fills the main columns")
    parser.add_argument("--flags", default="",
                        help="extra transformer-run flags, space-separated")
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure everything N times, the baselines and "
                             "ours in turn, and report each time's median "
                             "over the rounds (a burst of noise from a "
                             "neighbour then moves one round, not a column)")
    args = parser.parse_args()
    if args.rounds < 1:
        sys.exit("Error: --rounds must be at least 1, got %d" % args.rounds)

    tool = os.path.join(args.build, "bin", "transformer-run")
    if not os.path.exists(tool):
        sys.exit("Error: %s not found: build first (bench/run.sh does)" % tool)
    suite = workloads.suite(args.quick, np.random.default_rng(0))
    if args.only:
        suite = [w for w in suite if args.only in w.name]
        if not suite:
            sys.exit("Error: no workload name contains '%s'" % args.only)
    thread_counts = [int(t) for t in args.threads.split(",") if t]
    libraries = [b for b in args.baselines.split(",") if b]
    for lib in libraries:
        if lib not in ("numpy", "torch", "onnxruntime"):
            sys.exit("Error: unknown baseline '%s' (numpy, torch, "
                     "onnxruntime)" % lib)

    print("measuring the FMA peak ...", file=sys.stderr, flush=True)
    cores = os.cpu_count() or 1
    peaks = peak.measure_all(tool, common_env(dict(os.environ)), cores)
    flags = args.flags.split()
    # The peak of the vectors our code is built for (an AVX2 target on an
    # AVX-512 machine, --target-features=-avx512f, is measured against ymm).
    width = "zmm" if peaks["zmm"][0] else "ymm"
    if target_vector_bits(tool, flags) == 256 and peaks["ymm"][0]:
        width = "ymm"
    peak_per_core, peak_all_cores = peaks[width]
    if not peak_per_core:
        sys.exit("Error: the FMA peak probe failed to compile or run")

    workdir = tempfile.mkdtemp(prefix="transformer-bench-")
    # The inputs and outputs of a full run take about 550 MB.
    atexit.register(shutil.rmtree, workdir, True)
    index = {}
    for n, w in enumerate(suite):
        wid = "w%02d" % n
        mlir = os.path.join(workdir, wid + ".mlir")
        with open(mlir, "w") as f:
            f.write(w.mlir)
        paths = []
        for i, a in enumerate(w.inputs):
            p = os.path.join(workdir, "%s.in%d.npy" % (wid, i))
            np.save(p, a)
            paths.append(p)
        index[w.name] = {"id": wid, "mlir": mlir, "inputs": paths}
    with open(os.path.join(workdir, "index.json"), "w") as f:
        json.dump(index, f)

    ours_threads = [int(t) for t in args.ours_threads.split(",") if t]
    # Per round: every baseline, then ours at every thread count.
    # baseline_rounds[key]: one result per round; ours_rounds[t][name] too.
    baseline_rounds = {}
    ours_rounds = {t: {w.name: [] for w in suite} for t in ours_threads}
    for rnd in range(args.rounds):
        label = " (round %d of %d)" % (rnd + 1, args.rounds) \
            if args.rounds > 1 else ""
        for lib in libraries:
            for t in thread_counts:
                key = "%s-%dt" % (lib, t)
                print("running %s%s ..." % (key, label), file=sys.stderr,
                      flush=True)
                result = run_baseline(lib, t, workdir, args.quick)
                baseline_rounds.setdefault(key, []).append(result)
                if "error" in result:
                    print("  %s: %s" % (key, result["error"]),
                          file=sys.stderr)
        for t in ours_threads:
            for w in suite:
                print("running ours-%dt: %s%s ..." % (t, w.name, label),
                      file=sys.stderr, flush=True)
                ours_rounds[t][w.name].append(
                    run_ours(tool, workdir, index, w, args.quick,
                             flags + ["--threads=%d" % t]))
    baselines = {key: merge_baseline_rounds(results, suite)
                 for key, results in baseline_rounds.items()}
    # ours_at[t][name]: our result with t threads; `ours` is the first count.
    ours_at = {t: {name: merge_rounds(results)
                   for name, results in by_name.items()}
               for t, by_name in ours_rounds.items()}
    ours = ours_at[ours_threads[0]]
    extra_threads = ours_threads[1:]

    def ours_ms_for(key, name):
        """Our time with the baseline's thread count where we have it."""
        t = int(key.rsplit("-", 1)[1][:-1])
        return ours_at.get(t, ours)[name].get("median_ms")

    keys = [k for k in baselines if "error" not in baselines[k]]
    # "% peak" compares with the peak of as many cores as ours-Nt uses.
    main_peak = (peak_per_core if ours_threads[0] == 1 or not peak_all_cores
                 else peak_per_core + (peak_all_cores - peak_per_core) *
                 (min(ours_threads[0], cores) - 1) / max(1, cores - 1))
    header = ["workload", "ours-%dt ms" % ours_threads[0], "GFLOP/s", "% peak",
              "GB/s"]
    for t in extra_threads:
        header += ["ours-%dt ms" % t, "ours-%dt GFLOP/s" % t]
    header += ["ours-%dt median/min" % t for t in ours_threads]
    if args.rounds > 1:
        header += ["ours-%dt processes max/min" % t for t in ours_threads]
    header += [k + " ms" for k in keys] + ["ours/" + k for k in keys]
    header += ["compile ms", "max err"]
    rows = []
    for w in suite:
        r = ours[w.name]
        ms = r.get("median_ms")
        row = [w.name]
        if ms is None:
            row += ["error: " + r["error"], "-", "-", "-"]
        else:
            gflops = w.flops / (ms * 1e-3) / 1e9
            row += [fmt_ms(ms), "%.1f" % gflops,
                    "%.0f%%" % (100 * gflops / main_peak),
                    "%.1f" % (w.bytes_moved / (ms * 1e-3) / 1e9)]
        for t in extra_threads:
            ms_t = ours_at[t][w.name].get("median_ms")
            row += [fmt_ms(ms_t),
                    "%.1f" % (w.flops / (ms_t * 1e-3) / 1e9) if ms_t else "-"]
        row += [spread(ours_at[t][w.name]) for t in ours_threads]
        if args.rounds > 1:
            row += ["%.2f" % ours_at[t][w.name]["process_spread"]
                    if "process_spread" in ours_at[t][w.name] else "-"
                    for t in ours_threads]
        row += [fmt_ms(baselines[k][w.name]["median_ms"]) for k in keys]
        row += [fmt_ratio(ours_ms_for(k, w.name),
                          baselines[k][w.name]["median_ms"]) for k in keys]
        row += [fmt_ms(r.get("compile_ms")),
                "%.1e" % r["max_abs_error"] if "max_abs_error" in r else "-"]
        rows.append(row)

    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    print("machine: %s, %d cores; measured f32 FMA peak (bench/peak.py): %s"
          % (peak.cpu_name(), cores, "; ".join(
              "%s %.0f GFLOP/s on 1 core, %.0f on %d" % (w, p[0], p[1] or 0,
                                                         cores)
              for w, p in peaks.items() if p[0])))
    print("ours-Nt: transformer-run %s --threads=N; %% peak of the %s peak "
          "(%.0f GFLOP/s) for ours-%dt; GB/s = bytes read and written / "
          "time; ours/X-Nt compares at the same thread count." %
          (" ".join(flags) or "(default flags)", width, main_peak,
           ours_threads[0]))
    for k in keys:
        b = baselines[k]
        print("%s: version %s%s, copy bandwidth %.1f GB/s" %
              (k, b.get("version", "?"),
               (", " + b["blas"]) if "blas" in b else "", b["copy_gbps"]))
    print("ratios: ours / baseline, below 1 means we are faster.")

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%d"),
                       "peak_gflops_per_core": peak_per_core,
                       "peak_gflops": {w: {"1": p[0], str(cores): p[1]}
                                       for w, p in peaks.items()},
                       "cpu": peak.cpu_name(),
                       "workloads": [{"name": w.name, "family": w.family,
                                      "flops": w.flops,
                                      "bytes": w.bytes_moved,
                                      "ours": ours[w.name],
                                      "ours_threads": {
                                          "%dt" % t: ours_at[t][w.name]
                                          for t in ours_threads},
                                      "baselines": {k: baselines[k].get(w.name)
                                                    for k in keys}}
                                     for w in suite],
                       "baseline_info": {k: {x: baselines[k][x] for x in
                                             ("version", "copy_gbps")}
                                         for k in keys}}, f, indent=1)
    failed = [w.name for w in suite if "error" in ours[w.name] or
              ours[w.name].get("max_abs_error", 0) > 1e-3]
    if failed:
        print("Error: wrong or failed results for: " + ", ".join(failed),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
