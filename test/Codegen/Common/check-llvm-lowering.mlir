// RUN: transformer-opt %s --transformer-check-llvm-lowering | FileCheck %s

// A module in the LLVM dialect (OpenMP ops included) passes unchanged.
// CHECK-LABEL: llvm.func @main
// CHECK:       omp.parallel
// CHECK:       llvm.return
llvm.func @main(%x: f32) -> f32 {
  omp.parallel {
    omp.terminator
  }
  %y = llvm.fadd %x, %x : f32
  llvm.return %y : f32
}
