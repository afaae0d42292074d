// An upstream-style program that carries its own transform script
// (`@__transform_main`), which its test pipeline would apply with
// --transform-interpreter before lowering: transformer-run applies it and
// removes it (--transformer-apply-embedded-schedule), then compiles the
// program, and prints what mlir-runner prints for the transformed program.

// RUN: %mlir-runner-parity %s --pipeline="--transform-interpreter --test-transform-dialect-erase-schedule --one-shot-bufferize=bufferize-function-boundaries --test-lower-to-llvm" -e main --entry-point-result=void --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so | FileCheck %s

// The script really ran: the matmul is tiled into loops before lowering.
// RUN: transformer-run %s --emit=linalg -O0 | FileCheck %s --check-prefix=TILED
// TILED-NOT: transform.
// TILED:     scf.for
// TILED:     linalg.matmul {{.*}} -> tensor<2x2xf32>

// [[1 2 3 4] [5 6 7 8] [9 10 11 12] [13 14 15 16]] times twice the identity.
// CHECK:      Unranked Memref base@ = {{.*}} rank = 2 offset = 0 sizes = [4, 4] strides = [4, 1] data =
// CHECK-NEXT: {{\[}}[2,   4,   6,   8],
// CHECK-NEXT:  [10,   12,   14,   16],
// CHECK-NEXT:  [18,   20,   22,   24],
// CHECK-NEXT:  [26,   28,   30,   32]]

func.func private @printMemrefF32(tensor<*xf32>)

func.func @matmul(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>)
                     outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}

func.func @main() {
  %a = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0],
                             [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]]> : tensor<4x4xf32>
  %b = arith.constant dense<[[2.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0],
                             [0.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 2.0]]> : tensor<4x4xf32>
  %c = call @matmul(%a, %b) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %u = tensor.cast %c : tensor<4x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %tiled, %loops:2 = transform.structured.tile_using_for %matmul tile_sizes [2, 2]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
