"""Times the numpy or PyTorch version of each workload in this process.

Run by bench.py once per (library, thread count), in a fresh process whose
environment fixes the thread count and the OpenBLAS/glibc settings (see
docs/performance.md). Reads the inputs that bench.py saved, prints JSON:
{"name": {"median_ms": ..., "reps": ...}, ..., "copy_gbps": ...}.

Usage: baselines.py numpy|torch THREADS WORKDIR [--quick]
"""

import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import workloads  # noqa: E402


def time_call(fn, budget_s, min_reps, max_reps):
    """Median ms of `fn()` after one warm-up call, over about budget_s."""
    start = time.perf_counter()
    fn()
    first = time.perf_counter() - start
    reps = int(max(min_reps, min(max_reps, budget_s / max(first, 1e-6))))
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return times[len(times) // 2], reps


def copy_bandwidth_gbps():
    """Read + write bandwidth of a large copy, the element-wise roofline."""
    src = np.ones(32 * 1024 * 1024 // 4, dtype=np.float32) * 1.5
    dst = np.empty_like(src)
    np.copyto(dst, src)
    ms, _ = time_call(lambda: np.copyto(dst, src), 0.5, 5, 200)
    return 2 * src.nbytes / (ms * 1e-3) / 1e9


def main():
    library, threads, workdir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    quick = "--quick" in sys.argv[4:]
    budget = 0.05 if quick else 1.0
    with open(os.path.join(workdir, "index.json")) as f:
        index = json.load(f)
    # The workloads bench.py chose (--only), in its order; their inputs
    # come from its .npy files.
    names = list(index)
    by_name = {w.name: w for w in
               workloads.suite(quick, np.random.default_rng(0))}
    out = {}
    torch = None
    if library == "torch":
        import torch
        torch.set_num_threads(threads)
        torch.set_grad_enabled(False)
    for name in names:
        entry = index[name]
        arrays = [np.load(p) for p in entry["inputs"]]
        w = by_name[name]
        if library == "numpy":
            fn = (lambda w=w, arrays=arrays: w.numpy_fn(*arrays))
        else:
            tensors = [torch.from_numpy(a) for a in arrays]
            fn = (lambda w=w, tensors=tensors: w.torch_fn(torch, *tensors))
        median, reps = time_call(fn, budget, 1 if quick else 3, 1000)
        out[name] = {"median_ms": median, "reps": reps}
    out["copy_gbps"] = copy_bandwidth_gbps()
    if library == "torch":
        out["version"] = torch.__version__
        out["blas"] = "OpenBLAS" if "openblas" in \
            torch.__config__.show().lower() else "unknown"
    else:
        out["version"] = np.__version__
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
