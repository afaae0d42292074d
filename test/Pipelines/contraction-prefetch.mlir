// -O2 and up: after the contraction schedule, each register tile's k loop
// prefetches B's rows of the next k block (transformer-cpu-prefetch-next-k-block);
// -O0 keeps the simple lowering, with no prefetches.
// RUN: transformer-opt %s --transformer-to-llvm | FileCheck %s
// RUN: transformer-opt %s --transformer-to-llvm=opt-level=0 | FileCheck %s --check-prefix=O0

// CHECK-LABEL: llvm.func @main_kernel
// CHECK:         "llvm.intr.prefetch"({{.*}}) <{cache = 1 : i32, hint = 1 : i32, rw = 0 : i32}>
// CHECK:         "llvm.intr.prefetch"({{.*}}) <{cache = 1 : i32, hint = 1 : i32, rw = 0 : i32}>
// CHECK:         llvm.load {{.*}} -> vector<32xf32>
// CHECK:         llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// O0-NOT: llvm.intr.prefetch
func.func @main(%a: tensor<64x512xf32>, %b: tensor<512x256xf32>) -> tensor<64x256xf32> {
  %0 = transformer.matmul %a, %b : tensor<64x512xf32>, tensor<512x256xf32> -> tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}
