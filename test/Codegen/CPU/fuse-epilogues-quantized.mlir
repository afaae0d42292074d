// RUN: transformer-opt %s --pass-pipeline='builtin.module(convert-transformer-to-linalg,transformer-cpu-select-target{cpu=skylake-avx512 threads=2},func.func(transformer-cpu-prepare-contractions,canonicalize,cse,transformer-cpu-fuse-epilogues,canonicalize,cse))' --split-input-file | FileCheck %s

// A many-rows contraction whose B is a block-quantized weight (the prepare
// pass's generic tagged "dequantize", read as f32 indexed (k, n)): each
// cache tile makes its k block of B from the blocks right before the
// register tiles read it, with vector code (per group of 16 weight rows and
// block of 32: widened, scaled and transposed in registers), into one
// buffer of the tile laid out in the register tile's panels (8 panels of
// 128 x 32), which the contraction reads through the panel map. No f32 copy
// of the whole weight exists.

// CHECK: #{{.*}} = affine_map<(d0, d1, d2) -> (d1 floordiv 32, d2, d1 mod 32)>
// CHECK-LABEL: func.func @prefill_blocks
// CHECK-NOT:     tensor<256x512xf32>
// CHECK:         } else {
// CHECK-NOT:       linalg.generic
// CHECK:           scf.forall (%{{.*}}, %[[J:.*]]) = (0, 0) to (%{{.*}}, 512) step (128, 256)
// CHECK:             %[[BLOCK:.*]] = tensor.empty() : tensor<8x128x32xf32>
// CHECK:             scf.for %[[K:.*]] = %c0 to %c256 step %c128 iter_args
// CHECK:               %[[FIRST:.*]] = affine.apply #{{.*}}()[%[[K]]]
// CHECK:               %[[B:.*]] = scf.for %[[G:.*]] = %c0 to %c256 step %c16 iter_args(%{{.*}} = %[[BLOCK]]) -> (tensor<8x128x32xf32>)
// CHECK:                 %[[ROW:.*]] = arith.addi %[[J]], %[[G]] : index
// CHECK:                 scf.for %[[KB:.*]] = %c0 to %c4 step %c1
// CHECK:                   %[[WB:.*]] = arith.addi %[[FIRST]], %[[KB]] : index
// CHECK:                   vector.transfer_read %arg1[%[[ROW]], %[[WB]], %c0]{{.*}} : tensor<512x8x34xi8>, vector<2xi8>
// CHECK:                   vector.transfer_read %arg1[%[[ROW]], %[[WB]], %c2]{{.*}} : tensor<512x8x34xi8>, vector<16xi8>
// CHECK:                   %[[P:.*]] = arith.divui %[[G]], %c32 : index
// CHECK:                   %[[C:.*]] = arith.remui %[[G]], %c32 : index
// CHECK:                   vector.shuffle
// CHECK:                   vector.transfer_write %{{.*}}, %{{.*}}[%[[P]], %{{.*}}, %[[C]]] {in_bounds = [true]} : vector<16xf32>, tensor<8x128x32xf32>
// CHECK:               linalg.generic {{.*}} ins(%{{.*}}, %[[B]] : tensor<?x128xf32>, tensor<8x128x32xf32>) {{.*}} {transformer.contraction = "mnk_tile"}
// CHECK-NOT:     tensor<256x512xf32>
func.func @prefill_blocks(%x: tensor<?x256xf32>, %q: tensor<512x8x34xi8>) -> tensor<?x512xf32> {
  %w = transformer.dequantize q8_0 %q : tensor<512x8x34xi8> -> tensor<512x256xf32>
  %y = transformer.matmul %x, %w {transpose_b} : tensor<?x256xf32>, tensor<512x256xf32> -> tensor<?x512xf32>
  return %y : tensor<?x512xf32>
}

// -----

// K = 320: blocks of 64, the longest multiple of 32 up to the target's 128
// that divides K, so that every block is a whole panel contraction.
// CHECK-LABEL: func.func @k_divisor
// CHECK:         %[[BLOCK:.*]] = tensor.empty() : tensor<4x64x32xf32>
// CHECK:         scf.for %{{.*}} = %c0 to %c320 step %c64
// CHECK:           %[[B:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[BLOCK]]) -> (tensor<4x64x32xf32>)
// CHECK:           linalg.generic {{.*}} ins(%{{.*}}, %[[B]] : tensor<64x64xf32>, tensor<4x64x32xf32>)
func.func @k_divisor(%x: tensor<64x320xf32>, %q: tensor<256x10x18xi8>) -> tensor<64x256xf32> {
  %w = transformer.dequantize q4_0 %q : tensor<256x10x18xi8> -> tensor<256x320xf32>
  %y = transformer.matmul %x, %w {transpose_b} : tensor<64x320xf32>, tensor<256x320xf32> -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}

// -----

// K = 352 (11 blocks of 32): no block of at least half the target's 128
// divides it, so B is made k x n, in blocks of 128, 128 and 96, the last
// into the first 96 rows of the tile's buffer.
// CHECK-LABEL: func.func @k_remainder
// CHECK-NOT:     tensor<352x256xf32>
// CHECK:         %[[BLOCK:.*]] = tensor.empty() : tensor<128x128xf32>
// CHECK:         scf.for %[[K:.*]] = %c0 to %c352 step %c128
// CHECK:           %[[DEPTH:.*]] = affine.min #{{.*}}(%[[K]])
// CHECK:           %[[PART:.*]] = tensor.extract_slice %[[BLOCK]][0, 0] [%[[DEPTH]], 128] [1, 1] : tensor<128x128xf32> to tensor<?x128xf32>
// CHECK:           %[[COUNT:.*]] = affine.apply #{{.*}}()[%[[DEPTH]]]
// CHECK:           %[[B:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[PART]]) -> (tensor<?x128xf32>)
// CHECK:             scf.for %{{.*}} = %c0 to %[[COUNT]] step %c1
// CHECK:               vector.transfer_read %arg1{{.*}} : tensor<256x11x18xi8>, vector<16xi8>
// CHECK:           linalg.contract {{.*}} ins(%{{.*}}, %[[B]] : tensor<64x?xf32>, tensor<?x128xf32>)
func.func @k_remainder(%x: tensor<64x352xf32>, %q: tensor<256x11x18xi8>) -> tensor<64x256xf32> {
  %w = transformer.dequantize q4_0 %q : tensor<256x11x18xi8> -> tensor<256x352xf32>
  %y = transformer.matmul %x, %w {transpose_b} : tensor<64x352xf32>, tensor<256x352xf32> -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}

// -----

// Columns padded to the register tile (200 -> 224): the weight rows past
// the last read the last one. (One cache tile of too little work for
// threads: plain loops.)
// CHECK-LABEL: func.func @padded_columns
// CHECK:         %[[LAST:.*]] = arith.constant 199 : index
// CHECK:         %[[B:.*]] = scf.for %{{.*}} = %c0 to %c224 step %c16 iter_args(%{{.*}} = %{{.*}}) -> (tensor<7x96x32xf32>)
// CHECK:           scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK:             arith.minui %{{.*}}, %[[LAST]] : index
// CHECK:             vector.transfer_read %arg1{{.*}} : tensor<200x3x18xi8>, vector<16xi8>
// CHECK:         linalg.generic {{.*}} ins(%arg0, %[[B]] : tensor<40x96xf32>, tensor<7x96x32xf32>)
func.func @padded_columns(%x: tensor<40x96xf32>, %q: tensor<200x3x18xi8>) -> tensor<40x200xf32> {
  %w = transformer.dequantize q4_0 %q : tensor<200x3x18xi8> -> tensor<200x96xf32>
  %y = transformer.matmul %x, %w {transpose_b} : tensor<40x96xf32>, tensor<200x96xf32> -> tensor<40x200xf32>
  return %y : tensor<40x200xf32>
}

// -----

// With more than 4 cache tiles along m (1280 rows, tiles of 128), each tile
// would make its blocks again: the whole f32 B is made once before the
// tiles, by the same vector code over 64-row groups of the weight.
// CHECK-LABEL: func.func @many_row_tiles
// CHECK:         %[[WHOLE:.*]] = tensor.empty() : tensor<64x512xf32>
// CHECK:         %[[B:.*]] = scf.forall (%{{.*}}) in (8) shared_outs(%{{.*}} = %[[WHOLE]])
// CHECK:           vector.transfer_read %arg1{{.*}} : tensor<512x2x34xi8>, vector<16xi8>
// CHECK:           vector.shuffle
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (1280, 512) step (128, 256)
// CHECK:           tensor.extract_slice %[[B]]
// CHECK:           linalg.contract
// CHECK-NOT:     linalg.generic
func.func @many_row_tiles(%x: tensor<1280x64xf32>, %q: tensor<512x2x34xi8>) -> tensor<1280x512xf32> {
  %w = transformer.dequantize q8_0 %q : tensor<512x2x34xi8> -> tensor<512x64xf32>
  %y = transformer.matmul %x, %w {transpose_b} : tensor<1280x64xf32>, tensor<512x64xf32> -> tensor<1280x512xf32>
  return %y : tensor<1280x512xf32>
}
