// The built-in CPU schedule on tagged contractions (bufferized IR).
// RUN: transformer-opt %s --transformer-cpu-select-target=cpu=skylake-avx512 --transformer-cpu-codegen --split-input-file | FileCheck %s
// The tiles come from the target: AVX2 (16 ymm registers) gets 6x16.
// RUN: transformer-opt %s --transformer-cpu-select-target=cpu=haswell --transformer-cpu-codegen --split-input-file | FileCheck %s --check-prefix=AVX2

// Cache tiles 256x256 over threads (skylake-avx512's 1 MiB L2 holds a
// 256 x 128 block of A), k in blocks of 128 (skylake-avx512's
// L1: a 128 x 32 panel of B fills half of it). In each k block, each panel
// of B 32 columns wide is copied straight from B into a panel buffer
// (allocated once per cache tile), which register tiles of 8x32 read: their
// 16 accumulators stay in registers across the k loop, 8 FMAs on
// vector<32xf32> (two zmm each) per k step, 4 steps per iteration (the loop
// unrolled).
// CHECK-LABEL: func.func @divisible
// CHECK:         scf.forall ({{.*}}) in (4, 4) {
// CHECK-NOT:       memref.alloc
// CHECK:           %[[PANEL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16384xi8>
// CHECK-NOT:       memref.alloc
// CHECK:           scf.for {{.*}} step %c128
// CHECK:             scf.for {{.*}} step %c32
// CHECK:               %[[VIEW:.*]] = memref.view %[[PANEL]]{{.*}} to memref<128x32xf32>
// CHECK:               scf.for {{.*}} step %c8
// CHECK:                 vector.transfer_read %arg1{{.*}} vector<8x32xf32>
// CHECK:                 vector.transfer_write {{.*}}, %[[VIEW]]{{.*}} : vector<8x32xf32>, memref<128x32xf32>
// CHECK:               scf.for {{.*}} step %c8
// CHECK:                 vector.transfer_read %arg2{{.*}} vector<8x32xf32>
// CHECK:                 scf.for {{.*}} step %c4 iter_args({{.*}}) -> (vector<8x32xf32>) {
// CHECK:                   vector.transfer_read %[[VIEW]]
// CHECK-COUNT-32:          vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:               vector.fma
// CHECK:                   scf.yield {{.*}} : vector<8x32xf32>
// CHECK:                 vector.transfer_write {{.*}} vector<8x32xf32>
// CHECK:           memref.dealloc %[[PANEL]]
// CHECK-NOT:     transformer.contraction
// AVX2-LABEL: func.func @divisible
// AVX2:         scf.forall ({{.*}}) in (4, 4) {
// AVX2-NOT:       memref.alloc() {alignment = 64 : i64} : memref<262144xi8>
// AVX2:           memref.alloc() {alignment = 64 : i64} : memref<16384xi8>
// AVX2:           scf.for {{.*}} step %c256
// AVX2:             scf.for {{.*}} step %c16
// AVX2:               memref.view {{.*}} to memref<256x16xf32>
// AVX2:               scf.for {{.*}} step %c6
// AVX2:                 scf.for {{.*}} step %c4 iter_args({{.*}}) -> (vector<6x16xf32>) {
// AVX2-COUNT-24:          vector.fma {{.*}} : vector<16xf32>
// AVX2-NOT:               vector.fma
// AVX2:                   scf.yield {{.*}} : vector<6x16xf32>
func.func @divisible(%a: memref<1024x1024xf32>, %b: memref<1024x1024xf32>, %c: memref<1024x1024xf32>) {
  linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : memref<1024x1024xf32>, memref<1024x1024xf32>) outs(%c : memref<1024x1024xf32>)
  return
}

// -----

// Odd sizes: the 8x32 register tile is peeled; the 5 rows past the last
// full tile are computed in pairs (2x32 tiles) and the last one alone (1x32),
// and the 21 columns of the remainder along n at their static size.
// CHECK-LABEL: func.func @odd
// CHECK-DAG:     vector.fma {{.*}} : vector<32xf32>
// CHECK-DAG:     vector.fma {{.*}} : vector<21xf32>
// CHECK-DAG:     iter_args({{.*}}) -> (vector<8x32xf32>)
// CHECK-DAG:     iter_args({{.*}}) -> (vector<8x21xf32>)
// CHECK-DAG:     iter_args({{.*}}) -> (vector<2x32xf32>)
// CHECK-DAG:     iter_args({{.*}}) -> (vector<2x21xf32>)
// CHECK-DAG:     iter_args({{.*}}) -> (vector<1x32xf32>)
// CHECK-DAG:     iter_args({{.*}}) -> (vector<1x21xf32>)
// CHECK-NOT:     linalg.
func.func @odd(%a: memref<37x61xf32>, %b: memref<61x53xf32>, %c: memref<37x53xf32>) {
  linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : memref<37x61xf32>, memref<61x53xf32>) outs(%c : memref<37x53xf32>)
  return
}

// -----

// 128 rows in 6-row tiles (AVX2): 21 full tiles and one pair, no single row.
// AVX2-LABEL: func.func @rows_past_the_tiles
// AVX2:         iter_args({{.*}}) -> (vector<6x16xf32>)
// AVX2:         iter_args({{.*}}) -> (vector<2x16xf32>)
// AVX2-NOT:     iter_args({{.*}}) -> (vector<1x16xf32>)
// AVX2:         return
func.func @rows_past_the_tiles(%a: memref<128x64xf32>, %b: memref<64x32xf32>, %c: memref<128x32xf32>) {
  linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : memref<128x64xf32>, memref<64x32xf32>) outs(%c : memref<128x32xf32>)
  return
}

// -----

// A dynamic number of rows (not padded by the prepare pass): full 8x32
// register tiles, then the rows past the last multiple of 8 in pairs (2x32
// tiles: four FMA chains in flight where a single row has two), then the
// last odd row alone; every tile's accumulators stay in registers across k.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK:         scf.forall
// CHECK:           scf.for {{.*}} step %c8
// CHECK:             scf.for {{.*}} iter_args({{.*}}) -> (vector<8x32xf32>) {
// CHECK-COUNT-8:       vector.fma {{.*}} : vector<32xf32>
// CHECK:           scf.for {{.*}} step %c8
// CHECK:             scf.for {{.*}} step %c2
// CHECK:               scf.for {{.*}} iter_args({{.*}}) -> (vector<2x32xf32>) {
// CHECK-COUNT-2:         vector.fma {{.*}} : vector<32xf32>
// CHECK:             scf.for {{.*}} step %c2
// CHECK:               scf.for {{.*}} step %c1
// CHECK:                 scf.for {{.*}} iter_args({{.*}}) -> (vector<1x32xf32>) {
// CHECK:                   vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:     linalg.
func.func @dynamic_rows(%a: memref<?x64xf32>, %b: memref<64x32xf32>, %c: memref<?x32xf32>) {
  linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : memref<?x64xf32>, memref<64x32xf32>) outs(%c : memref<?x32xf32>)
  return
}

// -----

// Dynamic sizes (the prepare pass pads m and n to the register tile; a
// user's IR may not be): full register tiles are vectorized with their
// accumulators in registers; the remainders of dynamic size become scalar
// loops before the hoisting.
// CHECK-LABEL: func.func @dynamic
// CHECK:         scf.forall
// CHECK:           scf.for {{.*}} iter_args({{.*}}) -> (vector<8x32xf32>) {
// CHECK-COUNT-8:     vector.fma {{.*}} : vector<32xf32>
// CHECK:           memref.load
// CHECK:           arith.mulf {{.*}} : f32
// CHECK:           memref.store
// CHECK-NOT:     linalg.matmul
func.func @dynamic(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// -----

// Batched: one batch per task.
// CHECK-LABEL: func.func @batched
// CHECK:         scf.forall ({{.*}}) in (4) {
// CHECK-COUNT-8: vector.fma {{.*}} : vector<32xf32>
func.func @batched(%a: memref<4x256x64xf32>, %b: memref<4x64x128xf32>, %c: memref<4x256x128xf32>) {
  linalg.batch_matmul {transformer.contraction = "bmnk"} ins(%a, %b : memref<4x256x64xf32>, memref<4x64x128xf32>) outs(%c : memref<4x256x128xf32>)
  return
}

// -----

// Untagged ops are left alone.
// CHECK-LABEL: func.func @untagged
// CHECK-NOT:     scf.forall
// CHECK:         linalg.matmul
func.func @untagged(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// B's transposed copy (tagged by the prepare pass): blocks of 256 rows over
// the threads, 16x16 tiles read as one vector<16x16xf32> and transposed in
// registers with shuffles (no strided scalar loads); the last block (44
// rows, a dynamic size inside the forall) keeps its full 16x16 tiles, and
// its remainder is a generic lowered to loops later. A fused epilogue
// (tagged by transformer-cpu-fuse-epilogues): vectors of 32 along the row,
// the 12-column remainder peeled, tanh as a polynomial (no libm call per
// lane).
// CHECK-LABEL: func.func @transpose_and_epilogue
// CHECK:         scf.forall (%{{.*}}) in (2) {
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               vector.transfer_read {{.*}} : memref<300x64xf32>, vector<16x16xf32>
// CHECK-COUNT-16:      vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
// CHECK:               vector.transfer_write {{.*}} : vector<16x16xf32>, memref<64x300xf32>
// CHECK:             scf.for
// CHECK:               linalg.generic
// CHECK-NOT:     math.tanh
// CHECK:         math.absf {{.*}} : vector<1x32xf32>
// CHECK:         math.fma {{.*}} : vector<1x32xf32>
// CHECK:         math.absf {{.*}} : vector<1x12xf32>
// CHECK:         math.fma {{.*}} : vector<1x12xf32>
// CHECK-NOT:     math.tanh
// CHECK-NOT:     transformer.contraction
// On AVX2 the tiles are 8x8 (a 16x16 one took 32 ymm registers and
// spilled), transposed with the AVX2 8x8 lowering: shuffles and blends.
// AVX2-LABEL: func.func @transpose_and_epilogue
// AVX2:         scf.forall (%{{.*}}) in (2) {
// AVX2:               vector.transfer_read {{.*}} : memref<300x64xf32>, vector<8x8xf32>
// AVX2-COUNT-8:       vector.shuffle {{.*}} : vector<8xf32>, vector<8xf32>
// AVX2:               llvm.inline_asm asm_dialect = intel "vblendps
// AVX2:               vector.transfer_write {{.*}} : vector<8x8xf32>, memref<64x300xf32>
func.func @transpose_and_epilogue(%w: memref<300x64xf32>, %wt: memref<64x300xf32>, %c: memref<128x300xf32>) {
  linalg.transpose ins(%w : memref<300x64xf32>) outs(%wt : memref<64x300xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%c : memref<128x300xf32>) attrs = {transformer.contraction = "epilogue"} {
  ^bb0(%out: f32):
    %t = math.tanh %out : f32
    linalg.yield %t : f32
  }
  return
}
