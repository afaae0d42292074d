// Ops of unregistered dialects (--allow-unregistered-dialect) are left alone
// by the lowering; they used to crash it (an op without a dialect).
// RUN: transformer-opt %s --allow-unregistered-dialect --lower-transformer | FileCheck %s

// CHECK-LABEL: func.func @unregistered_producer
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK: %[[FOO:.*]] = "foo.bar"(%[[X]]) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK: %[[RELU:.*]] = linalg.{{.*}}ins(%[[FOO]] : tensor<8xf32>)
// CHECK: "foo.consume"(%[[RELU]])
// CHECK-NOT: transformer.
func.func @unregistered_producer(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = "foo.bar"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = transformer.relu %0 : tensor<8xf32> -> tensor<8xf32>
  %2 = "foo.consume"(%1) : (tensor<8xf32>) -> tensor<8xf32>
  return %2 : tensor<8xf32>
}
