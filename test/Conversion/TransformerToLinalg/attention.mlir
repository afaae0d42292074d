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

// With a window, keys at or behind i + (Sk - Sq) - W are hidden too.
// CHECK-LABEL: func @causal_mask_window
// CHECK: %[[OFF:.*]] = arith.constant 2 : index
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x6xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[LAST:.*]] = arith.addi %[[I]], %[[OFF]] : index
// CHECK: %[[AHEAD:.*]] = arith.cmpi sgt, %[[J]], %[[LAST]] : index
// CHECK: %[[W:.*]] = arith.constant 3 : index
// CHECK: %[[FIRST:.*]] = arith.subi %[[LAST]], %[[W]] : index
// CHECK: %[[BEHIND:.*]] = arith.cmpi sle, %[[J]], %[[FIRST]] : index
// CHECK: %[[HIDDEN:.*]] = arith.ori %[[AHEAD]], %[[BEHIND]] : i1
// CHECK: arith.select %[[HIDDEN]]
func.func @causal_mask_window() -> tensor<4x6xf32> {
  %0 = transformer.create_causal_mask {window = 3 : i64} : tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// Default scale 1/sqrt(16) = 0.25; q k^T (linalg.batch_matmul reading k
// transposed), scale, softmax with zero rows (linalg.reduce for max and
// sum), then probs @ v (linalg.batch_matmul).
// CHECK-DAG: #[[$Q:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$KT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[$S:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @attention
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x16xf32>, %[[K:.*]]: tensor<2x6x16xf32>, %[[V:.*]]: tensor<2x6x8xf32>)
// CHECK: %[[SINIT:.*]] = linalg.fill {{.*}} -> tensor<2x4x6xf32>
// CHECK: %[[SCORES:.*]] = linalg.batch_matmul indexing_maps = [#[[$Q]], #[[$KT]], #[[$S]]] ins(%[[Q]], %[[K]] : tensor<2x4x16xf32>, tensor<2x6x16xf32>) outs(%[[SINIT]] : tensor<2x4x6xf32>)
// CHECK: %[[SCALE:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: %[[LOGITS:.*]] = linalg.generic {{.*}} ins(%[[SCORES]] : tensor<2x4x6xf32>)
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK-NOT: linalg.index
// CHECK: linalg.reduce ins(%[[LOGITS]] : tensor<2x4x6xf32>) {{.*}} dimensions = [2]
// CHECK: math.exp
// CHECK: linalg.reduce
// CHECK: %[[PROBS:.*]] = linalg.generic
// CHECK: arith.divf
// CHECK: %[[OINIT:.*]] = linalg.fill {{.*}} -> tensor<2x4x8xf32>
// CHECK: %[[OUT:.*]] = linalg.batch_matmul ins(%[[PROBS]], %[[V]] : tensor<2x4x6xf32>, tensor<2x6x8xf32>) outs(%[[OINIT]] : tensor<2x4x8xf32>)
// CHECK: return %[[OUT]]
func.func @attention(%q: tensor<2x4x16xf32>, %k: tensor<2x6x16xf32>, %v: tensor<2x6x8xf32>) -> tensor<2x4x8xf32> {
  %0 = transformer.attention %q, %k, %v : tensor<2x4x16xf32>, tensor<2x6x16xf32>, tensor<2x6x8xf32> -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// causal and an explicit mask in one element-wise step; rank 2 uses
// linalg.matmul.
// CHECK-DAG: #[[$Q:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$KT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func @attention_causal_mask
// CHECK: %[[SCORES:.*]] = linalg.matmul indexing_maps = [#[[$Q]], #[[$KT]], #{{.*}}] ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<6x8xf32>) outs(%{{.*}} : tensor<4x6xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[SCORES]], %arg3 : tensor<4x6xf32>, tensor<6xf32>)
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
// CHECK: linalg.batch_matmul indexing_maps = {{.*}} ins(%arg0, %arg1 : tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%{{.*}} : tensor<?x?x?xf32>)
// CHECK: math.rsqrt
// CHECK: linalg.batch_matmul ins(%{{.*}}, %arg2 : tensor<?x?x?xf32>, tensor<?x?x?xf32>)
func.func @attention_dynamic(%q: tensor<?x?x?xf32>, %k: tensor<?x?x?xf32>, %v: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = transformer.attention %q, %k, %v {causal} : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

// Grouped-query attention in the generic lowering: key and value are read
// with their heads repeated (head h / group), then the usual composition.
// CHECK-LABEL: func @attention_gqa
// CHECK-NOT: cf.assert
// CHECK: %[[K:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x6x8xf32>)
// CHECK: %[[H:.*]] = linalg.index 1 : index
// CHECK: %[[KVH:.*]] = arith.divui %[[H]], %c2{{.*}} : index
// CHECK: tensor.extract %arg1[%{{.*}}, %[[KVH]], %{{.*}}, %{{.*}}] : tensor<1x2x6x8xf32>
// CHECK: %[[V:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x6x8xf32>)
// CHECK: tensor.extract %arg2
// CHECK: linalg.contract {{.*}} ins(%arg0, %[[K]] : tensor<1x4x5x8xf32>, tensor<1x4x6x8xf32>)
func.func @attention_gqa(%q: tensor<1x4x5x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>) -> tensor<1x4x5x8xf32> {
  %0 = transformer.attention %q, %k, %v {causal} : tensor<1x4x5x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32> -> tensor<1x4x5x8xf32>
  return %0 : tensor<1x4x5x8xf32>
}

// -----

// Heads known only at run time: the key/value heads must divide the
// query's.
// CHECK-LABEL: func @attention_gqa_dynamic
// CHECK: cf.assert %{{.*}}, "transformer.attention: the heads of key and value differ"
// CHECK: cf.assert %{{.*}}, "transformer.attention: the query heads are not a multiple of the key and value heads"
func.func @attention_gqa_dynamic(%q: tensor<1x?x5x8xf32>, %k: tensor<1x?x6x8xf32>, %v: tensor<1x?x6x8xf32>) -> tensor<1x?x5x8xf32> {
  %0 = transformer.attention %q, %k, %v : tensor<1x?x5x8xf32>, tensor<1x?x6x8xf32>, tensor<1x?x6x8xf32> -> tensor<1x?x5x8xf32>
  return %0 : tensor<1x?x5x8xf32>
}
