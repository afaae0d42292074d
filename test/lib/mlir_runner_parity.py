"""Runs an upstream-style program under transformer-run and under mlir-runner
and checks that both print the same.

Usage: mlir_runner_parity.py FILE [--pipeline=PASSES] [RUNNER FLAGS...]

The reference is what upstream's tools print: `mlir-opt FILE PASSES` (by
default one-shot bufferization and upstream's test lowering to LLVM, as
upstream's integration tests run their programs) piped into `mlir-runner`.
transformer-run compiles FILE itself, once at -O0 and once at -O2 (or the
level of TRANSFORMER_TEST_OPT_LEVEL, which `--param opt_level=-O3` sets). The
RUNNER FLAGS (`-e main --entry-point-result=void --shared-libs=...`) are
given to both runners. Buffer addresses (`base@ = 0x...`), the one thing
that differs from run to run, are masked before the comparison. On a match
the optimized output is printed, for FileCheck to check its values; otherwise a
diff, and exit status 1.
"""

import difflib
import os
import re
import shutil
import subprocess
import sys

DEFAULT_PIPELINE = ("--one-shot-bufferize=bufferize-function-boundaries "
                    "--test-lower-to-llvm")


def llvm_tool(name):
    """`name` from LLVM's tools directory (on PATH in lit)."""
    path = shutil.which(name)
    if not path:
        sys.exit(f"mlir_runner_parity.py: {name} not found on PATH")
    return path


def run(command, stdin=None):
    """Runs `command`; returns its stdout, or exits with its stderr."""
    result = subprocess.run(command, input=stdin, capture_output=True,
                            text=True, timeout=600)
    if result.returncode != 0:
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        sys.exit(f"mlir_runner_parity.py: exit status {result.returncode}: "
                 + " ".join(command))
    return result.stdout


def mask(text):
    return re.sub(r"base@ = 0x[0-9a-f]+", "base@ = ADDR", text)


def main():
    path = sys.argv[1]
    pipeline = DEFAULT_PIPELINE
    flags = []
    for arg in sys.argv[2:]:
        if arg.startswith("--pipeline="):
            pipeline = arg[len("--pipeline="):]
        else:
            flags.append(arg)
    lowered = run([llvm_tool("mlir-opt"), path] + pipeline.split())
    expected = mask(run([llvm_tool("mlir-runner")] + flags, stdin=lowered))
    outputs = {}
    optimized = os.environ.get("TRANSFORMER_TEST_OPT_LEVEL") or "-O2"
    for level in ("-O0", optimized):
        outputs[level] = mask(run([llvm_tool("transformer-run"), path, level]
                                  + flags))
        if outputs[level] != expected:
            diff = difflib.unified_diff(
                expected.splitlines(), outputs[level].splitlines(),
                "mlir-opt | mlir-runner", "transformer-run " + level,
                lineterm="")
            print("\n".join(diff))
            print(f"mlir_runner_parity.py: transformer-run {level} and "
                  "mlir-runner differ", file=sys.stderr)
            return 1
    sys.stdout.write(outputs[optimized])
    return 0


if __name__ == "__main__":
    sys.exit(main())
