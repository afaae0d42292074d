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
// CHECK:             %[[SPLAT:.*]] = vector.broadcast %[[E]] : f16 to vector<16xf16>
// CHECK:             %[[B:.*]] = arith.extf %[[SPLAT]] : vector<16xf16> to vector<16xf32>
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

// q4_0: one load of the 16 bytes of nibbles per block, widened to i32 once,
// the low and high nibbles (elements 0-15 and 16-31) split with a mask and a
// shift and converted as stored (q + 8); the 8 is taken off once per block
// of A for all the rows of B: each row's sum starts from -8 * (a0 + a1).
// CHECK-LABEL: func.func @decode_q4_0
// CHECK:         %[[A0:.*]] = vector.transfer_read %arg0{{.*}} : tensor<1x128xf32>, vector<16xf32>
// CHECK:         %[[A1:.*]] = vector.transfer_read %arg0{{.*}} : tensor<1x128xf32>, vector<16xf32>
// CHECK:         %[[SUMA:.*]] = arith.addf %[[A0]], %[[A1]] : vector<16xf32>
// CHECK:         %[[CORR:.*]] = arith.mulf %[[SUMA]], %{{.*}} : vector<16xf32>
// CHECK:         %[[BYTES:.*]] = vector.transfer_read %arg1{{.*}} : tensor<64x4x18xi8>, vector<16xi8>
// CHECK:         %[[Q:.*]] = arith.extui %[[BYTES]] : vector<16xi8> to vector<16xi32>
// CHECK:         %[[LOW:.*]] = arith.andi %[[Q]], %{{.*}} : vector<16xi32>
// CHECK:         %[[HIGH:.*]] = arith.shrui %[[Q]], %{{.*}} : vector<16xi32>
// CHECK-NOT:     arith.subi
// CHECK:         %[[VLOW:.*]] = arith.sitofp %[[LOW]] : vector<16xi32> to vector<16xf32>
// CHECK:         %[[VHIGH:.*]] = arith.sitofp %[[HIGH]] : vector<16xi32> to vector<16xf32>
// CHECK:         %[[DOT:.*]] = vector.fma %[[A0]], %[[VLOW]], %[[CORR]] : vector<16xf32>
// CHECK:         vector.fma %[[A1]], %[[VHIGH]], %[[DOT]] : vector<16xf32>
// CHECK-NOT:     tensor<64x128xf32>
// AVX2-LABEL: func.func @decode_q4_0
// AVX2:         vector.extract_strided_slice %{{.*}} {offsets = [8], sizes = [8], strides = [1]} : vector<16xi32> to vector<8xi32>
// AVX2:         arith.sitofp %{{.*}} : vector<8xi32> to vector<8xf32>
func.func @decode_q4_0(%x: tensor<1x128xf32>, %q: tensor<64x4x18xi8>) -> tensor<1x64xf32> {
  %w = transformer.dequantize q4_0 %q : tensor<64x4x18xi8> -> tensor<64x128xf32>
  %y = transformer.matmul %x, %w {transpose_b} : tensor<1x128xf32>, tensor<64x128xf32> -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

// -----

// A dynamic number of rows: the choice is made at run time. Few rows read
// the blocks; many rows (prefill) read B as f32 indexed (k, n), the layout
// of the f32 weights' tiled path, from a generic tagged "dequantize" inside
// their own branch (scalar code from the blocks, which
// transformer-cpu-fuse-epilogues replaces by vector code per cache tile and
// k block, fuse-epilogues-quantized.mlir). Nothing runs before the branch.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK-NOT:     linalg.generic
// CHECK:         scf.if
// CHECK:           vector.transfer_read %arg1{{.*}} : tensor<64x4x34xi8>, vector<16xi8>
// CHECK:         } else {
// CHECK:           %[[EMPTY:.*]] = tensor.empty() : tensor<128x64xf32>
// CHECK:           %[[F32:.*]] = linalg.generic {{.*}} outs(%[[EMPTY]] : tensor<128x64xf32>) attrs = {transformer.contraction = "dequantize", transformer.dequantize = "q8_0", transformer.outline_with_user}
// CHECK:             %[[K:.*]] = linalg.index 0 : index
// CHECK:             %[[N:.*]] = linalg.index 1 : index
// CHECK:             %[[ROW:.*]] = arith.minui %[[N]], %c63 : index
// CHECK:             arith.divui %[[K]], %c32 : index
// CHECK:             tensor.extract %arg1[%[[ROW]]
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

// -----

// Columns padded to the register tile's multiple (200 -> 224): the pad of
// the dequantized B becomes a wider dequantization whose rows past the
// weight's repeat its last row (the padded columns of C are dropped).
// CHECK-LABEL: func.func @padded_columns
// CHECK-NOT:     tensor.pad
// CHECK:         %[[F32:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<96x224xf32>) attrs = {transformer.contraction = "dequantize", transformer.dequantize = "q4_0", transformer.outline_with_user}
// CHECK:           arith.minui %{{.*}}, %c199 : index
// CHECK:         %[[C:.*]] = linalg.contract {{.*}} ins(%arg0, %[[F32]] : tensor<40x96xf32>, tensor<96x224xf32>) outs(%{{.*}} : tensor<40x224xf32>)
// CHECK:         tensor.extract_slice %[[C]][0, 0] [40, 200] [1, 1]
func.func @padded_columns(%x: tensor<40x96xf32>, %q: tensor<200x3x18xi8>) -> tensor<40x200xf32> {
  %w = transformer.dequantize q4_0 %q : tensor<200x3x18xi8> -> tensor<200x96xf32>
  %y = transformer.matmul %x, %w {transpose_b} : tensor<40x96xf32>, tensor<200x96xf32> -> tensor<40x200xf32>
  return %y : tensor<40x200xf32>
}
