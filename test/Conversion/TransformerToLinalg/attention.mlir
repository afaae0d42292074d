// RUN: transformer-opt %s --lower-transformer -split-input-file | FileCheck %s

// CHECK-LABEL: func @causal_mask
// CHECK: %[[OFF:.*]] = arith.constant 2 : index
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x6xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[LIM:.*]] = arith.addi %[[I]], %[[OFF]] : index
// CHECK: arith.cmpi sgt, %[[J]], %[[LIM]] : index
// CHECK: arith.select
func.func @causal_mask() -> tensor<4x6xf32> {
  %0 = transformer.create_causal_mask : tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// Default scale 1/sqrt(16) = 0.25; q k^T, scale, softmax with zero rows, @ v.
// CHECK-LABEL: func @attention
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<2x4x16xf32>, tensor<2x6x16xf32>) outs(%{{.*}} : tensor<2x4x6xf32>)
// CHECK: %[[SCALE:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK-NOT: linalg.index
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %arg2 : tensor<2x4x6xf32>, tensor<2x6x8xf32>) outs(%{{.*}} : tensor<2x4x8xf32>)
func.func @attention(%q: tensor<2x4x16xf32>, %k: tensor<2x6x16xf32>, %v: tensor<2x6x8xf32>) -> tensor<2x4x8xf32> {
  %0 = transformer.attention %q, %k, %v : tensor<2x4x16xf32>, tensor<2x6x16xf32>, tensor<2x6x8xf32> -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// causal and an explicit mask in one element-wise step.
// CHECK-LABEL: func @attention_causal_mask
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %arg3 : tensor<4x6xf32>, tensor<6xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: arith.cmpi sgt
// CHECK: arith.select
func.func @attention_causal_mask(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>, %m: tensor<6xf32>) -> tensor<4x8xf32> {
  %0 = transformer.attention %q, %k, %v mask(%m : tensor<6xf32>) {causal, scale = 0.5 : f32} : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Dynamic shapes: every cross-operand dim is checked; the default scale is
// computed at run time from D.
// CHECK-LABEL: func @attention_dynamic
// CHECK: cf.assert %{{.*}}, "transformer.attention: batch dimension 0 of query and key differ"
// CHECK: cf.assert %{{.*}}, "transformer.attention: batch dimension 0 of query and value differ"
// CHECK: cf.assert %{{.*}}, "transformer.attention: the head dimensions of query and key differ"
// CHECK: cf.assert %{{.*}}, "transformer.attention: the sequence lengths of key and value differ"
// CHECK: math.rsqrt
func.func @attention_dynamic(%q: tensor<?x?x?xf32>, %k: tensor<?x?x?xf32>, %v: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = transformer.attention %q, %k, %v {causal} : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}
