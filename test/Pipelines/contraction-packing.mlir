// -O2 and up: the contraction schedule packs B into contiguous panels, one
// register tile wide, in a buffer allocated once per cache tile (on the
// stack of the thread's task: a 16 KiB panel), and the register tiles read B
// from there. Each panel is copied straight from B (vector<32xf32> loads
// and stores); its rows lie a row of B apart, which the hardware prefetchers
// do not follow, so transformer-cpu-prefetch-next-k-block has the register
// tiles prefetch the next k block's rows of their panel. -O0 keeps the
// simple lowering (the result its only allocation).
// RUN: transformer-opt %s --transformer-to-llvm=target-cpu=skylake-avx512 | FileCheck %s
// RUN: transformer-opt %s --transformer-to-llvm=target-cpu=haswell | FileCheck %s --check-prefix=AVX2
// RUN: transformer-opt %s --transformer-to-llvm=opt-level=0 | FileCheck %s --check-prefix=O0

// CHECK-LABEL: llvm.func @main_kernel
// CHECK:         llvm.alloca {{.*}} x i8 {alignment = 64 : i64}
// CHECK:         llvm.load {{.*}} -> vector<32xf32>
// CHECK:         llvm.store {{.*}} : vector<32xf32>, !llvm.ptr
// CHECK:         llvm.intr.prefetch
// CHECK:         llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// CHECK-NOT:     llvm.call @malloc
// CHECK-LABEL: llvm.func @main(
// AVX2-LABEL: llvm.func @main_kernel
// AVX2:         llvm.alloca
// AVX2:         llvm.intr.fmuladd({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// AVX2-NOT:     vector<32xf32>
// O0-NOT: llvm.call @free
// O0-NOT: llvm.intr.prefetch
func.func @main(%a: tensor<64x512xf32>, %b: tensor<512x256xf32>) -> tensor<64x256xf32> {
  %0 = transformer.matmul %a, %b : tensor<64x512xf32>, tensor<512x256xf32> -> tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}
