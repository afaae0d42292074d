// RUN: transformer-opt %s --pass-pipeline='builtin.module(convert-transformer-to-linalg,transformer-cpu-select-target{cpu=skylake-avx512},func.func(transformer-cpu-prepare-contractions,canonicalize,cse))' --split-input-file | FileCheck %s
// RUN: transformer-opt %s --pass-pipeline='builtin.module(convert-transformer-to-linalg,transformer-cpu-select-target{cpu=haswell},func.func(transformer-cpu-prepare-contractions,canonicalize,cse))' --split-input-file | FileCheck %s --check-prefix=AVX2

// Contractions whose B is a dequantized weight (transformer.dequantize,
// lowered to a tagged linalg.generic). Few rows: the dot-product kernel
// reads B's blocks (the scale's two bytes as an f16, the values as i8
// vectors widened in registers, one scaled FMA per block of 32): no f32
// copy of B exists.

// CHECK-LABEL: func.func @decode_q8_0
// CHECK-NOT:     transformer.dequantize =
// CHECK-NOT:     tensor<64x128xf32>
// CHECK:         scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK:             vector.transfer_read %arg0{{.*}} : tensor<1x128xf32>, vector<16xf32>
// CHECK:             %[[Q:.*]] = vector.transfer_read %arg1{{.*}} : tensor<64x4x34xi8>, vector<16xi8>
// CHECK:             %[[V:.*]] = arith.sitofp %[[Q]] : vector<16xi8> to vector<16xf32>
// CHECK:             %[[DOT:.*]] = vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:             %[[S:.*]] = vector.transfer_read %arg1{{.*}} : tensor<64x4x34xi8>, vector<2xi8>
// CHECK:             %[[H:.*]] = vector.bitcast %[[S]] : vector<2xi8> to vector<1xf16>
// CHECK:             %[[E:.*]] = vector.extract %[[H]][0] : f16 from vector<1xf16>
// CHECK:             %[[F:.*]] = arith.extf %[[E]] : f16 to f32
// CHECK:             %[[B:.*]] = vector.broadcast %[[F]] : f32 to vector<16xf32>
// CHECK:             vector.fma %[[DOT]], %[[B]], %{{.*}} : vector<16xf32>
// CHECK-NOT:     tensor<64x128xf32>
// AVX2-LABEL: func.func @decode_q8_0
// AVX2:         vector.transfer_read %arg1{{.*}} : tensor<64x4x34xi8>, vector<8xi8>
// AVX2:         arith.sitofp %{{.*}} : vector<8xi8> to vector<8xf32>
func.func @decode_q8_0(%x: tensor<1x128xf32>, %q: tensor<64x4x34xi8>) -> tensor<1x64xf32> {
  %w = transformer.dequantize q8_0 %q : tensor<64x4x34xi8> -> tensor<64x128xf32>
  %y = transformer.matmul %x, %w {transpose_b} : tensor<1x128xf32>, tensor<64x128xf32> -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

// -----

// q4_0: one load of the 16 bytes of nibbles per block, the low and high
// nibbles (elements 0-15 and 16-31) split with masks and shifts, centred by 8.
// CHECK-LABEL: func.func @decode_q4_0
// CHECK:         %[[Q:.*]] = vector.transfer_read %arg1{{.*}} : tensor<64x4x18xi8>, vector<16xi8>
// CHECK:         %[[LOW:.*]] = arith.andi %[[Q]], %{{.*}} : vector<16xi8>
// CHECK:         %[[HIGH:.*]] = arith.shrui %[[Q]], %{{.*}} : vector<16xi8>
// CHECK:         arith.subi %[[LOW]], %{{.*}} : vector<16xi8>
// CHECK:         arith.subi %[[HIGH]], %{{.*}} : vector<16xi8>
// CHECK:         arith.sitofp %{{.*}} : vector<16xi8> to vector<16xf32>
// CHECK-NOT:     tensor<64x128xf32>
// AVX2-LABEL: func.func @decode_q4_0
// AVX2:         vector.extract_strided_slice %{{.*}} {offsets = [8], sizes = [8], strides = [1]} : vector<16xi8> to vector<8xi8>
// AVX2:         arith.sitofp %{{.*}} : vector<8xi8> to vector<8xf32>
func.func @decode_q4_0(%x: tensor<1x128xf32>, %q: tensor<64x4x18xi8>) -> tensor<1x64xf32> {
  %w = transformer.dequantize q4_0 %q : tensor<64x4x18xi8> -> tensor<64x128xf32>
  %y = transformer.matmul %x, %w {transpose_b} : tensor<1x128xf32>, tensor<64x128xf32> -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

// -----

// A dynamic number of rows: the choice is made at run time. Few rows read
// the blocks; many rows (prefill) expand B with vector code into an f32 copy
// inside their own branch, transposed in registers (16 x 16 tiles of
// shuffles) into the k x n layout of the f32 weights' tiled path: the
// contraction needs no transposed copy. Nothing runs before the branch.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK-NOT:     linalg.generic
// CHECK:         scf.if
// CHECK:           vector.transfer_read %arg1{{.*}} : tensor<64x4x34xi8>, vector<16xi8>
// CHECK:         } else {
// CHECK:           %[[EMPTY:.*]] = tensor.empty() : tensor<128x64xf32>
// CHECK:           %[[F32:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[EMPTY]]) -> (tensor<128x64xf32>)
// CHECK:             vector.transfer_read %arg1{{.*}} : tensor<64x4x34xi8>, vector<16xi8>
// CHECK:             arith.mulf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:             vector.shuffle {{.*}} [0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30] : vector<16xf32>, vector<16xf32>
// CHECK:             vector.transfer_write %{{.*}} : vector<16xf32>, tensor<128x64xf32>
// CHECK-NOT:       linalg.transpose
// CHECK:           linalg.contract {{.*}}{transformer.contraction = "mnk"} ins(%arg0, %[[F32]] : tensor<?x128xf32>, tensor<128x64xf32>)
func.func @dynamic_rows(%x: tensor<?x128xf32>, %q: tensor<64x4x34xi8>) -> tensor<?x64xf32> {
  %w = transformer.dequantize q8_0 %q : tensor<64x4x34xi8> -> tensor<64x128xf32>
  %y = transformer.matmul %x, %w {transpose_b} : tensor<?x128xf32>, tensor<64x128xf32> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// One weight, two consumers: the embedding gathers from the blocks and the
// tied LM head (one row) reads them in the dot kernel.
// CHECK-LABEL: func.func @tied_head
// CHECK-NOT:     tensor<64x128xf32>
// CHECK:         tensor.extract %arg2
// CHECK:         vector.transfer_read %arg2{{.*}} : tensor<64x4x34xi8>, vector<16xi8>
// CHECK-NOT:     tensor<64x128xf32>
func.func @tied_head(%ids: tensor<3xi64>, %x: tensor<1x128xf32>, %q: tensor<64x4x34xi8>) -> (tensor<3x128xf32>, tensor<1x64xf32>) {
  %w = transformer.dequantize q8_0 %q : tensor<64x4x34xi8> -> tensor<64x128xf32>
  %e = transformer.embedding %ids, %w : tensor<3xi64>, tensor<64x128xf32> -> tensor<3x128xf32>
  %y = transformer.matmul %x, %w {transpose_b} : tensor<1x128xf32>, tensor<64x128xf32> -> tensor<1x64xf32>
  return %e, %y : tensor<3x128xf32>, tensor<1x64xf32>
}
