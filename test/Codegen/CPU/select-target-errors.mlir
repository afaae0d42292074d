// Bad target names and feature lists, and malformed recorded targets: one
// line each, non-zero exit.
// RUN: not transformer-opt %s --transformer-cpu-select-target=cpu=pentium9 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not transformer-opt %s --transformer-cpu-select-target=features=avx2 2>&1 | FileCheck %s --check-prefix=SIGN
// RUN: not transformer-opt %s --transformer-cpu-select-target=features=+avx513f 2>&1 | FileCheck %s --check-prefix=FEATURE
// RUN: not transformer-opt %s --transformer-to-llvm=target-cpu=pentium9 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not transformer-run %s --target-cpu=pentium9 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not transformer-run %s --print-target --target-features=-avx513f 2>&1 | FileCheck %s --check-prefix=FEATURE
// RUN: transformer-opt %S/Inputs/bad-targets.mlir --split-input-file --verify-diagnostics

// CPU: unknown target CPU 'pentium9' (llc -mcpu=help lists x86 CPU names)
// SIGN: target feature 'avx2' must start with '+' or '-' (as in '-avx512f')
// FEATURE: unknown target feature 'avx513f'

func.func @main() {
  return
}
