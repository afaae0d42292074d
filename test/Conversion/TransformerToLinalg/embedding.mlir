// RUN: transformer-opt %s --lower-transformer -split-input-file | FileCheck %s

// Every id is checked against [0, V) before the gather.
// CHECK-LABEL: func @embedding
// CHECK: %[[MIN:.*]] = linalg.reduce ins(%arg0 : tensor<2x3xi32>) outs(%{{.*}} : tensor<i32>) dimensions = [0, 1]
// CHECK: arith.minsi
// CHECK: tensor.extract %[[MIN]][] : tensor<i32>
// CHECK: %[[MAX:.*]] = linalg.reduce ins(%arg0 : tensor<2x3xi32>) outs(%{{.*}} : tensor<i32>) dimensions = [0, 1]
// CHECK: arith.maxsi
// CHECK: tensor.extract %[[MAX]][] : tensor<i32>
// CHECK: %[[V:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt, %{{.*}}, %[[V]] : i64
// CHECK: cf.assert %{{.*}}, "transformer.embedding: a token id is outside [0, V) of the table"
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<2x3xi32>) outs(%{{.*}} : tensor<2x3x4xf32>)
// CHECK: arith.index_cast %{{.*}} : i32 to index
// CHECK: linalg.index 2
// CHECK: tensor.extract %arg1
func.func @embedding(%ids: tensor<2x3xi32>, %table: tensor<10x4xf32>) -> tensor<2x3x4xf32> {
  %0 = transformer.embedding %ids, %table : tensor<2x3xi32>, tensor<10x4xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func @embedding_dynamic_i64
// CHECK: tensor.dim %arg1, %{{.*}} : tensor<?x?xf32>
// CHECK: cf.assert
// CHECK: tensor.extract %arg1
func.func @embedding_dynamic_i64(%ids: tensor<?xi64>, %table: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.embedding %ids, %table : tensor<?xi64>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// cos and sin come from a [positions, D/2] table made first, once per
// position and pair; the rotation reads them.
// CHECK-LABEL: func @rope
// CHECK-NOT: cf.assert
// CHECK: %[[TABLE:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<3x4xf32>)
// CHECK: %[[P:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: math.powf
// CHECK: %[[COS:.*]] = math.cos
// CHECK: %[[SIN:.*]] = math.sin
// CHECK: linalg.yield %[[COS]], %[[SIN]] : f32, f32
// CHECK: linalg.generic
// CHECK: %[[POS:.*]] = linalg.index 1 : index
// CHECK: %[[D:.*]] = linalg.index 2 : index
// CHECK: arith.xori
// CHECK: %[[PAIR:.*]] = arith.shrui %[[D]]
// CHECK: tensor.extract %arg0
// CHECK: tensor.extract %[[TABLE]]#0[%[[POS]], %[[PAIR]]] : tensor<3x4xf32>
// CHECK: tensor.extract %[[TABLE]]#1[%[[POS]], %[[PAIR]]] : tensor<3x4xf32>
// CHECK-NOT: math.cos
// CHECK: return
func.func @rope(%x: tensor<1x3x8xf32>) -> tensor<1x3x8xf32> {
  %0 = transformer.rope %x : tensor<1x3x8xf32> -> tensor<1x3x8xf32>
  return %0 : tensor<1x3x8xf32>
}

// -----

// With an offset and a dynamic head size: both are checked.
// CHECK-LABEL: func @rope_offset_dynamic
// CHECK: cf.assert %{{.*}}, "transformer.rope: the last dimension must be even"
// CHECK: cf.assert %{{.*}}, "transformer.rope: the position offset is negative"
// CHECK: linalg.generic
// CHECK: arith.addi %{{.*}}, %arg1 : index
func.func @rope_offset_dynamic(%x: tensor<?x?xf32>, %pos: index) -> tensor<?x?xf32> {
  %0 = transformer.rope %x at %pos : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A 16-bit table: each element gathered is widened to f32 where it is read.
// CHECK-LABEL: func @embedding_f16
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<3xi32>) outs(%{{.*}} : tensor<3x4xf32>)
// CHECK: %[[E:.*]] = tensor.extract %arg1[%{{.*}}, %{{.*}}] : tensor<10x4xf16>
// CHECK: %[[W:.*]] = arith.extf %[[E]] : f16 to f32
// CHECK: linalg.yield %[[W]] : f32
func.func @embedding_f16(%ids: tensor<3xi32>, %table: tensor<10x4xf16>) -> tensor<3x4xf32> {
  %0 = transformer.embedding %ids, %table : tensor<3xi32>, tensor<10x4xf16> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// rotate_half pairs element d with d + D/2 (or d - D/2), and a frequency
// table replaces base^(-2j/D): no powf.
// CHECK-LABEL: func @rope_rotate_half_freqs
// CHECK-NOT: cf.assert
// CHECK: %[[TABLE:.*]]:2 = linalg.generic
// CHECK: %[[TJ:.*]] = linalg.index 1 : index
// CHECK: tensor.extract %arg1[%[[TJ]]] : tensor<4xf32>
// CHECK-NOT: math.powf
// CHECK: math.cos
// CHECK: math.sin
// CHECK: linalg.generic
// CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[D:.*]], %c4 : index
// CHECK: %[[UP:.*]] = arith.addi %[[D]], %c4 : index
// CHECK: %[[LOW:.*]] = arith.subi %[[D]], %c4 : index
// CHECK: %[[PARTNER:.*]] = arith.select %[[FIRST]], %[[UP]], %[[LOW]] : index
// CHECK: %[[J:.*]] = arith.select %[[FIRST]], %[[D]], %[[LOW]] : index
// CHECK: tensor.extract %arg0[%{{.*}}, %{{.*}}, %[[PARTNER]]]
// CHECK: tensor.extract %[[TABLE]]#0[%{{.*}}, %[[J]]]
// CHECK: tensor.extract %[[TABLE]]#1[%{{.*}}, %[[J]]]
func.func @rope_rotate_half_freqs(%x: tensor<1x3x8xf32>, %f: tensor<4xf32>) -> tensor<1x3x8xf32> {
  %0 = transformer.rope %x freqs(%f : tensor<4xf32>) {rotate_half} : tensor<1x3x8xf32> -> tensor<1x3x8xf32>
  return %0 : tensor<1x3x8xf32>
}

// -----

// A table of dynamic size is checked against D/2 at run time.
// CHECK-LABEL: func @rope_freqs_dynamic
// CHECK: cf.assert %{{.*}}, "transformer.rope: freqs must have D/2 entries"
func.func @rope_freqs_dynamic(%x: tensor<2x8xf32>, %f: tensor<?xf32>) -> tensor<2x8xf32> {
  %0 = transformer.rope %x freqs(%f : tensor<?xf32>) : tensor<2x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
