// At -O2, what the contraction prep makes of a loop-invariant operand leaves
// the loop: in a generation loop, the LM head's transposed weight copy is
// made once, not once per step (32 rows: more than the dot-product form of
// few rows takes, which makes no copy at all).
// RUN: transformer-opt %s --transformer-to-llvm --mlir-print-ir-after=loop-invariant-code-motion -o /dev/null 2>&1 | FileCheck %s

// CHECK-LABEL: func.func @loop
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<128x64xf32>) {{.*}} {transformer.contraction = "transpose"}
// CHECK:         scf.for
// CHECK-NOT:       linalg.transpose
// CHECK:           linalg.contract
// CHECK:         return
func.func @loop(%x: tensor<32x64xf32>, %w: tensor<128x64xf32>, %n: index) -> tensor<32x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<32x64xf32>) {
    %l = transformer.matmul %acc, %w {transpose_b} : tensor<32x64xf32>, tensor<128x64xf32> -> tensor<32x128xf32>
    %s = tensor.extract_slice %l[0, 0] [32, 64] [1, 1] : tensor<32x128xf32> to tensor<32x64xf32>
    %t = transformer.scale %s {factor = 0.01 : f32} : tensor<32x64xf32> -> tensor<32x64xf32>
    scf.yield %t : tensor<32x64xf32>
  }
  return %r : tensor<32x64xf32>
}
