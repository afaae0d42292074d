// -O2 and up: the contraction schedule packs B into contiguous panels, one
// register tile wide, allocated once per cache tile (malloc before the k
// loop, free after it), and the register tiles read B from there. B's rows
// are then no longer a matrix row apart, and
// transformer-cpu-prefetch-next-k-block (which prefetches B's rows read in
// place) leaves the panel reads alone. -O0 keeps the simple lowering (the result its only allocation).
// RUN: transformer-opt %s --transformer-to-llvm=target-cpu=skylake-avx512 | FileCheck %s
// RUN: transformer-opt %s --transformer-to-llvm=target-cpu=haswell | FileCheck %s --check-prefix=AVX2
// RUN: transformer-opt %s --transformer-to-llvm=opt-level=0 | FileCheck %s --check-prefix=O0

// CHECK-LABEL: llvm.func @main_kernel
// CHECK:         llvm.call @malloc
// CHECK-NOT:     llvm.intr.prefetch
// CHECK:         llvm.load {{.*}} -> vector<32xf32>
// CHECK:         llvm.store {{.*}} : vector<32xf32>, !llvm.ptr
// CHECK:         llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// CHECK:         llvm.call @free
// AVX2-LABEL: llvm.func @main_kernel
// AVX2:         llvm.call @malloc
// AVX2:         llvm.intr.fmuladd({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// AVX2-NOT:     vector<32xf32>
// O0-NOT: llvm.call @free
// O0-NOT: llvm.intr.prefetch
func.func @main(%a: tensor<64x512xf32>, %b: tensor<512x256xf32>) -> tensor<64x256xf32> {
  %0 = transformer.matmul %a, %b : tensor<64x512xf32>, tensor<512x256xf32> -> tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}
