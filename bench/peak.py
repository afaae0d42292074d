"""The machine's f32 FMA peak, measured with our own compiler.

The "% peak" column of bench.py divides by this number. It is measured, not
assumed: the same "AVX-512" name covers cores that run a 512-bit FMA in one
pass (Zen 5, Intel server cores: 64 flops/cycle) and cores that split it
into two 256-bit halves (Zen 4: 32 flops/cycle), a factor of two.

The probe is a loop of independent FMA chains with no memory traffic (16
chains of vector<16xf32> for zmm registers, 12 of vector<8xf32> for ymm),
JIT-compiled and timed by transformer-run; the best of a few runs is the
peak of one core, and the same probe run on every core at once the peak of
the machine.
"""

import re
import subprocess
import tempfile

ITERATIONS = 4_000_000

#: (lanes, chains) per register width: enough independent chains to cover
#: the FMA latency on every current x86 core, few enough to stay in the
#: registers (32 zmm with AVX-512, 16 ymm otherwise).
PROBES = {"zmm": (16, 16), "ymm": (8, 12)}


def probe_mlir(lanes, chains):
    vec = "vector<%dxf32>" % lanes
    lines = ["func.func @main(%%s: f32) -> tensor<%dxf32> {" % lanes,
             "  %c0 = arith.constant 0 : index",
             "  %c1 = arith.constant 1 : index",
             "  %%n = arith.constant %d : index" % ITERATIONS,
             "  %%x = vector.broadcast %%s : f32 to %s" % vec,
             "  %%y = arith.constant dense<0.999> : %s" % vec]
    for i in range(chains):
        lines.append("  %%i%d = arith.constant dense<%d.0> : %s" % (i, i, vec))
    types = ", ".join([vec] * chains)
    inits = ", ".join("%%a%d = %%i%d" % (i, i) for i in range(chains))
    lines.append("  %%r:%d = scf.for %%k = %%c0 to %%n step %%c1 "
                 "iter_args(%s) -> (%s) {" % (chains, inits, types))
    for i in range(chains):
        lines.append("    %%b%d = vector.fma %%a%d, %%y, %%x : %s" % (i, i, vec))
    lines.append("    scf.yield %s : %s" % (
        ", ".join("%%b%d" % i for i in range(chains)), types))
    lines.append("  }")
    acc = "%r#0"
    for i in range(1, chains):
        lines.append("  %%s%d = arith.addf %s, %%r#%d : %s" % (i, acc, i, vec))
        acc = "%%s%d" % i
    lines.append("  %%t = vector.extract %s[0] : f32 from %s" % (acc, vec))
    lines.append("  %%out = tensor.from_elements %s : tensor<%dxf32>"
                 % (", ".join(["%t"] * lanes), lanes))
    lines.append("  return %%out : tensor<%dxf32>" % lanes)
    lines.append("}")
    return "\n".join(lines) + "\n"


def has_avx512():
    try:
        with open("/proc/cpuinfo") as f:
            return " avx512f" in f.read()
    except OSError:
        return False


def measure_peak_gflops(tool, env, runs=3, width=None, processes=1):
    """GFLOP/s of `processes` cores together (one probe process on each),
    with vectors of `width` ("zmm", "ymm"; default: the widest the CPU has),
    or None when the probe fails or the CPU lacks the width."""
    width = width or ("zmm" if has_avx512() else "ymm")
    if width == "zmm" and not has_avx512():
        return None
    lanes, chains = PROBES[width]
    flops = 2 * lanes * chains * ITERATIONS
    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
        f.write(probe_mlir(lanes, chains))
        f.flush()
        command = [tool, f.name, "--input=f32=0.5", "--threads=1",
                   "--benchmark-repetitions=%d" % runs, "--warmup=1",
                   "--output="]
        procs = [subprocess.Popen(command, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env)
                 for _ in range(processes)]
        outputs = [(proc, proc.communicate()[0]) for proc in procs]
    total = 0.0
    for proc, out in outputs:
        found = re.search(r"min ([0-9.]+) ms", out)
        if proc.returncode != 0 or not found:
            return None
        total += flops / (float(found.group(1)) * 1e-3) / 1e9
    return total


def measure_all(tool, env, cores=2):
    """{"zmm": (1 core, `cores` cores), "ymm": (...)}; None where absent."""
    result = {}
    for width in PROBES:
        one = measure_peak_gflops(tool, env, width=width)
        many = (measure_peak_gflops(tool, env, width=width, processes=cores)
                if one else None)
        result[width] = (one, many)
    return result


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


if __name__ == "__main__":
    import os
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tool = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        root, "build", "bin", "transformer-run")
    cores = os.cpu_count() or 1
    print("machine: %s, %d cores" % (cpu_name(), cores))
    for width, (one, many) in measure_all(tool, dict(os.environ),
                                          cores).items():
        if one is None:
            print("%s: not available" % width)
        else:
            print("%s f32 FMA peak: %.0f GFLOP/s on 1 core, %.0f on %d"
                  % (width, one, many or 0, cores))
