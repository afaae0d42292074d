"""The machine's f32 FMA peak, measured with our own compiler.

The "% peak" column of bench.py divides by this number. It is measured, not
assumed: the same "AVX-512" name covers cores that run a 512-bit FMA in one
pass (Zen 5, Intel server cores: 64 flops/cycle) and cores that split it
into two 256-bit halves (Zen 4: 32 flops/cycle), a factor of two.

The probe is a loop of 16 independent vector<16xf32> FMA chains with no
memory traffic (enough chains to cover the FMA latency on every current
x86 core), JIT-compiled and timed by transformer-run; the best of a few runs
is the peak of one core.
"""

import re
import subprocess
import tempfile

CHAINS = 16
ITERATIONS = 4_000_000
FLOPS = 2 * 16 * CHAINS * ITERATIONS


def probe_mlir():
    lines = ["func.func @main(%s: f32) -> tensor<16xf32> {",
             "  %c0 = arith.constant 0 : index",
             "  %c1 = arith.constant 1 : index",
             "  %%n = arith.constant %d : index" % ITERATIONS,
             "  %x = vector.broadcast %s : f32 to vector<16xf32>",
             "  %y = arith.constant dense<0.999> : vector<16xf32>"]
    for i in range(CHAINS):
        lines.append("  %%i%d = arith.constant dense<%d.0> : vector<16xf32>"
                     % (i, i))
    types = ", ".join(["vector<16xf32>"] * CHAINS)
    inits = ", ".join("%%a%d = %%i%d" % (i, i) for i in range(CHAINS))
    lines.append("  %%r:%d = scf.for %%k = %%c0 to %%n step %%c1 "
                 "iter_args(%s) -> (%s) {" % (CHAINS, inits, types))
    for i in range(CHAINS):
        lines.append("    %%b%d = vector.fma %%a%d, %%y, %%x : vector<16xf32>"
                     % (i, i))
    lines.append("    scf.yield %s : %s" % (
        ", ".join("%%b%d" % i for i in range(CHAINS)), types))
    lines.append("  }")
    acc = "%r#0"
    for i in range(1, CHAINS):
        lines.append("  %%s%d = arith.addf %s, %%r#%d : vector<16xf32>"
                     % (i, acc, i))
        acc = "%%s%d" % i
    lines.append("  %%t = vector.extract %s[0] : f32 from vector<16xf32>" % acc)
    lines.append("  %%out = tensor.from_elements %s : tensor<16xf32>"
                 % ", ".join(["%t"] * 16))
    lines.append("  return %out : tensor<16xf32>")
    lines.append("}")
    return "\n".join(lines) + "\n"


def measure_peak_gflops(tool, env, runs=3):
    """GFLOP/s of one core, or None when the probe fails."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
        f.write(probe_mlir())
        f.flush()
        proc = subprocess.run(
            [tool, f.name, "--input=f32=0.5", "--threads=1",
             "--benchmark-repetitions=%d" % runs, "--warmup=1", "--output="],
            capture_output=True, text=True, env=env)
    found = re.search(r"min ([0-9.]+) ms", proc.stdout)
    if proc.returncode != 0 or not found:
        return None
    return FLOPS / (float(found.group(1)) * 1e-3) / 1e9


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
    except OSError:
        return "unknown CPU"
    name = re.search(r"model name\s*:\s*(.*)", info)
    family = re.search(r"cpu family\s*:\s*(\d+)", info)
    model = re.search(r"^model\s*:\s*(\d+)", info, re.M)
    text = name.group(1).strip() if name else "unknown CPU"
    if family and model:
        text += " (family %s, model %s)" % (family.group(1), model.group(1))
    return text
