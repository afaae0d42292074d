// transformer-run takes a module at any stage: transformer ops, linalg on
// tensors (after --lower-transformer), or already the LLVM dialect (after
// --transformer-to-llvm, what mlir-runner accepts), where it finds
// `llvm.func @main`.

// RUN: rm -rf %t && split-file %s %t

// Already linalg.
// RUN: transformer-opt --lower-transformer %t/tensors.mlir | transformer-run - --input="2x2xf32=1 2 3 4" --expected-output="2x2xf32=2 3 4 5" | FileCheck %s --check-prefix=LINALG
// LINALG: [SUCCESS]

// Already the LLVM dialect, with scalars.
// RUN: transformer-opt --transformer-to-llvm %t/scalars.mlir -o %t/scalars.ll.mlir
// RUN: transformer-run %t/scalars.ll.mlir --input=f32=1.5 --input=4 | FileCheck %s --check-prefix=LLVM
// LLVM: EXEC @main
// LLVM-NEXT: result[0]: f32=6

// Tensors are memref descriptors there, with the element type gone.
// RUN: transformer-opt --transformer-to-llvm %t/tensors.mlir -o %t/tensors.ll.mlir
// RUN: %exit-status 1 transformer-run %t/tensors.ll.mlir --input=2x2xf32=1 2>&1 | FileCheck %s --check-prefix=LLVM-TENSOR --match-full-lines --implicit-check-not={{.}}
// LLVM-TENSOR: Error: @main is in the LLVM dialect: only f32, i32 and i64 arguments and results can be passed to it (got !llvm.ptr); run the module before --transformer-to-llvm to pass tensors

//--- tensors.mlir
func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %one = arith.constant dense<1.0> : tensor<2x2xf32>
  %0 = transformer.add %a, %one : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
//--- scalars.mlir
func.func @main(%a: f32, %n: i64) -> f32 {
  %b = arith.sitofp %n : i64 to f32
  %0 = arith.mulf %a, %b : f32
  return %0 : f32
}
