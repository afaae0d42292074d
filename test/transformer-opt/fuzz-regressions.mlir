// Inputs the fuzzers found (fuzz/regressions/), replayed through the tools:
// each must end in a diagnostic, never a crash.

// fuzz-compiler: an op name cut off at the end of the file (the harness fed
// MLIR's lexer a buffer without a NUL terminator; the tools always have one).
// RUN: not transformer-opt %src_root/fuzz/regressions/compiler/unterminated-op-name 2>&1 | FileCheck %s --check-prefix=OPNAME
// RUN: not transformer-run %src_root/fuzz/regressions/compiler/unterminated-op-name 2>&1 | FileCheck %s --check-prefix=OPNAME
// OPNAME: custom op 'transformer.masked_sof' is unknown

// fuzz-inputs: an empty shape whose other dims overflow int64 when multiplied
// (the first byte of the file selects the value-spec parser).
// RUN: %python -c "import sys; sys.stdout.write(open(sys.argv[1], 'rb').read()[1:].decode())" %src_root/fuzz/regressions/inputs/empty-shape-stride-overflow > %t.spec
// RUN: not %python -c "import subprocess, sys; spec = open(sys.argv[1]).read(); sys.exit(subprocess.run(['transformer-run', sys.argv[2], '--input=' + spec]).returncode)" %t.spec %s 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: Error: input 0: {{.*}} is larger than the 1024 MiB limit

func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
