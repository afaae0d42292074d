// RUN: not transformer-opt %s --transformer-cpu-codegen=schedule=%t.missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not transformer-opt %s --transformer-cpu-codegen=schedule=%S/Inputs/no-entry-schedule.mlir 2>&1 | FileCheck %s --check-prefix=NO-ENTRY
// RUN: echo "module {" > %t.bad.mlir
// RUN: not transformer-opt %s --transformer-cpu-codegen=schedule=%t.bad.mlir 2>&1 | FileCheck %s --check-prefix=PARSE

// MISSING: error: cannot read the transform schedule '{{.*}}.missing.mlir'
// NO-ENTRY: error: the transform schedule '{{.*}}no-entry-schedule.mlir' has no @__transform_main named sequence
// PARSE: bad.mlir:{{[0-9]+}}:{{[0-9]+}}: error:

func.func @f(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}
