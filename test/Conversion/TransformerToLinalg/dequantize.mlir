// RUN: transformer-opt %s --lower-transformer -split-input-file | FileCheck %s

// Each weight is f32(scale) * q: the scale is the block's first two bytes
// (an f16, little-endian), q8_0's values the 32 signed bytes after it. The
// generic is tagged with its format for the CPU kernels.
// CHECK-LABEL: func @dequantize_q8_0
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<6x64xf32>) attrs = {transformer.dequantize = "q8_0"}
// CHECK: %[[N:.*]] = linalg.index 0
// CHECK: %[[K:.*]] = linalg.index 1
// CHECK: %[[B:.*]] = arith.divui %[[K]], %[[C32:.*]] : index
// CHECK: %[[J:.*]] = arith.remui %[[K]], %[[C32]] : index
// CHECK: %[[LO:.*]] = tensor.extract %arg0[%[[N]], %[[B]], %c0{{[_0-9]*}}] : tensor<6x2x34xi8>
// CHECK: arith.extui %[[LO]] : i8 to i16
// CHECK: tensor.extract %arg0[%[[N]], %[[B]], %c1{{[_0-9]*}}]
// CHECK: arith.shli
// CHECK: %[[BITS:.*]] = arith.ori
// CHECK: %[[HALF:.*]] = arith.bitcast %[[BITS]] : i16 to f16
// CHECK: %[[SCALE:.*]] = arith.extf %[[HALF]] : f16 to f32
// CHECK: %[[AT:.*]] = arith.addi %[[J]], %c2{{[_0-9]*}}
// CHECK: %[[Q:.*]] = tensor.extract %arg0[%[[N]], %[[B]], %[[AT]]]
// CHECK: %[[V:.*]] = arith.sitofp %[[Q]] : i8 to f32
// CHECK: %[[W:.*]] = arith.mulf %[[SCALE]], %[[V]] : f32
// CHECK: linalg.yield %[[W]]
func.func @dequantize_q8_0(%q: tensor<6x2x34xi8>) -> tensor<6x64xf32> {
  %0 = transformer.dequantize q8_0 %q : tensor<6x2x34xi8> -> tensor<6x64xf32>
  return %0 : tensor<6x64xf32>
}

// -----

// q4_0: byte 2 + j % 16 holds element j in its low nibble (j < 16) or its
// high nibble, stored as q + 8. Leading dimensions index rows too.
// CHECK-LABEL: func @dequantize_q4_0
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x6x96xf32>) attrs = {transformer.dequantize = "q4_0"}
// CHECK: arith.bitcast %{{.*}} : i16 to f16
// CHECK: %[[J:.*]] = arith.remui %{{.*}}, %c16{{[_0-9]*}}
// CHECK: %[[AT:.*]] = arith.addi %[[J]], %c2{{[_0-9]*}}
// CHECK: %[[BYTE:.*]] = tensor.extract %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %[[AT]]] : tensor<2x6x3x18xi8>
// CHECK: %[[HIGH:.*]] = arith.divui %{{.*}}, %c16{{[_0-9]*}}
// CHECK: %[[SHIFT:.*]] = arith.muli %[[HIGH]], %c4{{[_0-9]*}}
// CHECK: %[[S8:.*]] = arith.index_cast %[[SHIFT]] : index to i8
// CHECK: %[[SHIFTED:.*]] = arith.shrui %[[BYTE]], %[[S8]] : i8
// CHECK: %[[NIBBLE:.*]] = arith.andi %[[SHIFTED]], %c15_i8{{[_0-9]*}}
// CHECK: %[[Q:.*]] = arith.subi %[[NIBBLE]], %c8_i8{{[_0-9]*}}
// CHECK: arith.sitofp %[[Q]] : i8 to f32
func.func @dequantize_q4_0(%q: tensor<2x6x3x18xi8>) -> tensor<2x6x96xf32> {
  %0 = transformer.dequantize q4_0 %q : tensor<2x6x3x18xi8> -> tensor<2x6x96xf32>
  return %0 : tensor<2x6x96xf32>
}

// -----

// Dynamic rows and blocks: the result's sizes come from the input's.
// CHECK-LABEL: func @dequantize_dynamic
// CHECK-DAG: %[[ROWS:.*]] = tensor.dim %arg0, %c0{{[_0-9]*}} : tensor<?x?x34xi8>
// CHECK-DAG: %[[BLOCKS:.*]] = tensor.dim %arg0, %c1{{[_0-9]*}} : tensor<?x?x34xi8>
// CHECK: %[[WIDTH:.*]] = arith.muli %[[BLOCKS]], %c32{{[_0-9]*}}
// CHECK: tensor.empty(%[[ROWS]], %[[WIDTH]]) : tensor<?x?xf32>
func.func @dequantize_dynamic(%q: tensor<?x?x34xi8>) -> tensor<?x?xf32> {
  %0 = transformer.dequantize q8_0 %q : tensor<?x?x34xi8> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// An embedding of a dequantized table gathers from the blocks: the rows it
// reads are expanded where they are read, with no f32 copy of the table
// (the vocabulary size comes from the blocks).
// CHECK-LABEL: func @embedding_of_blocks
// CHECK-NOT: transformer.dequantize =
// CHECK: tensor.dim %arg1, %c0{{[_0-9]*}} : tensor<?x2x34xi8>
// CHECK: cf.assert
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<3xi64>) outs(%{{.*}} : tensor<3x64xf32>)
// CHECK: %[[ROW:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: tensor.extract %arg1[%[[ROW]], %{{.*}}, %c0{{[_0-9]*}}] : tensor<?x2x34xi8>
// CHECK: arith.sitofp
// CHECK-NOT: transformer.dequantize =
func.func @embedding_of_blocks(%ids: tensor<3xi64>, %q: tensor<?x2x34xi8>) -> tensor<3x64xf32> {
  %w = transformer.dequantize q8_0 %q : tensor<?x2x34xi8> -> tensor<?x64xf32>
  %0 = transformer.embedding %ids, %w : tensor<3xi64>, tensor<?x64xf32> -> tensor<3x64xf32>
  return %0 : tensor<3x64xf32>
}
