// RUN: transformer-opt %s --transformer-generate-runtime-checks --split-input-file | FileCheck %s

// Each upstream op that can check itself at run time gets its checks, with
// a one-line message naming the op and where it was written.

// CHECK-LABEL: func.func @generic
// CHECK:       cf.assert %{{.*}}, "linalg.generic at {{.*}}generate-runtime-checks.mlir:[[# @LINE + 4]]:8: dimension #0 of input/output operand #1 is incompatible with inferred dimension size"
// CHECK:       linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @generic(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%a : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @load
// CHECK:       cf.assert %{{.*}}, "memref.load at {{.*}}: out-of-bounds access"
// CHECK-NEXT:  memref.load
func.func @load(%m: memref<4xf32>, %i: index) -> f32 {
  %v = memref.load %m[%i] : memref<4xf32>
  return %v : f32
}

// -----

// Ops in transform scripts are not code, and get no checks.
module attributes {transform.with_named_sequence} {
  // CHECK-LABEL: transform.named_sequence @__transform_main
  // CHECK-NOT:   cf.assert
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.yield
  }
}
