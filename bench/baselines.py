"""Times the numpy, PyTorch or ONNX Runtime version of each workload.

Run by bench.py once per (library, thread count), in a fresh process whose
environment fixes the thread count and the OpenBLAS/glibc settings (see
docs/performance.md). Reads the inputs that bench.py saved, prints JSON:
{"name": {"median_ms": ..., "reps": ...}, ..., "copy_gbps": ...}.

numpy and PyTorch run in this process. For ONNX Runtime, each workload's
PyTorch version is exported with torch.onnx.export (once per work
directory) and timed by bench/ort_bench.js with npm's onnxruntime-node on
its CPU execution provider (bench/run.sh installs it under bench/.ort).

Usage: baselines.py numpy|torch|onnxruntime THREADS WORKDIR [--quick]
"""

import json
import os
import shutil
import subprocess
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


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORT_MODULES = os.path.join(ROOT, "bench", ".ort", "node_modules")


def export_onnx(torch, w, arrays, path):
    """Writes `w`'s PyTorch version as an ONNX model of fixed shapes."""
    class Workload(torch.nn.Module):
        def forward(self, *xs):
            return w.torch_fn(torch, *xs)

    torch.onnx.export(Workload(), tuple(torch.from_numpy(a) for a in arrays),
                      path, opset_version=17,
                      input_names=["in%d" % i for i in range(len(arrays))],
                      output_names=["out"])


def onnxruntime_results(threads, workdir, index, by_name, quick):
    """{"name": {...}} from bench/ort_bench.js, the models exported first."""
    if not shutil.which("node") or not os.path.isdir(
            os.path.join(ORT_MODULES, "onnxruntime-node")):
        raise RuntimeError("node or onnxruntime-node is missing (bench/run.sh "
                           "installs them)")
    try:
        import torch
    except ImportError:
        raise RuntimeError("PyTorch, which exports the ONNX models, is missing "
                           "(bench/run.sh installs it)")
    torch.set_grad_enabled(False)
    models = []
    for i, name in enumerate(index):
        path = os.path.join(workdir, "model%d.onnx" % i)
        failed = path + ".failed"
        if os.path.exists(failed):
            continue
        if not os.path.exists(path):
            arrays = [np.load(p) for p in index[name]["inputs"]]
            try:
                export_onnx(torch, by_name[name], arrays, path + ".tmp")
                os.replace(path + ".tmp", path)
            except Exception as e:  # an op the exporter does not take
                print("%s: export failed: %s" % (name, e), file=sys.stderr)
                open(failed, "w").close()
                continue
        # Inputs by name: the exporter drops inputs a model does not use.
        models.append({"name": name, "model": path,
                       "inputs": {"in%d" % j: p for j, p in
                                  enumerate(index[name]["inputs"])}})
    job = os.path.join(workdir, "ort-job-%d.json" % threads)
    with open(job, "w") as f:
        json.dump({"threads": threads, "budget_s": 0.05 if quick else 1.0,
                   "min_reps": 1 if quick else 3, "models": models}, f)
    env = dict(os.environ, NODE_PATH=ORT_MODULES)
    proc = subprocess.run(["node", os.path.join(ROOT, "bench", "ort_bench.js"),
                           job], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        raise RuntimeError(lines[-1] if lines else "ort_bench.js failed")
    return json.loads(proc.stdout)


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
    if library == "onnxruntime":
        try:
            out = onnxruntime_results(threads, workdir, index, by_name, quick)
        except RuntimeError as e:
            sys.exit(str(e))
        for name in names:
            if "median_ms" not in out.get(name, {}):
                out[name] = {"median_ms": None, "reps": 0,
                             "error": out.get(name, {}).get(
                                 "error", "not exported")}
        out["copy_gbps"] = copy_bandwidth_gbps()
        json.dump(out, sys.stdout)
        return
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
