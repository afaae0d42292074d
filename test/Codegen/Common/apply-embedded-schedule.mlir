// RUN: transformer-opt %s --transformer-apply-embedded-schedule --split-input-file | FileCheck %s

// The program's own script runs on it (here: tile a fill by 2), and is
// removed, with its nested module and the module's attribute.
// CHECK-LABEL: module {
// CHECK:       func.func @fill
// CHECK:         scf.for
// CHECK:           linalg.fill {{.*}} -> tensor<2xf32>
// CHECK-NOT:   transform.
func.func @fill(%t: tensor<8xf32>) -> tensor<8xf32> {
  %one = arith.constant 1.0 : f32
  %r = linalg.fill ins(%one : f32) outs(%t : tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %fill = transform.structured.match ops{["linalg.fill"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_for %fill tile_sizes [2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Without a script, nothing changes.
// CHECK-LABEL: func.func @plain
// CHECK-NEXT:    return
func.func @plain() {
  return
}
