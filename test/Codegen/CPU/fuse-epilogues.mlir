// RUN: transformer-opt %s --pass-pipeline='builtin.module(transformer-cpu-select-target{cpu=haswell threads=2},func.func(transformer-cpu-fuse-epilogues))' --split-input-file | FileCheck %s
// The balancing follows the threads: none for one, multiples of four.
// RUN: transformer-opt %s --pass-pipeline='builtin.module(transformer-cpu-select-target{cpu=haswell threads=1},func.func(transformer-cpu-fuse-epilogues))' --split-input-file | FileCheck %s --check-prefix=ONE
// RUN: transformer-opt %s --pass-pipeline='builtin.module(transformer-cpu-select-target{cpu=haswell threads=3},func.func(transformer-cpu-fuse-epilogues))' --split-input-file | FileCheck %s --check-prefix=THREE
// RUN: transformer-opt %s --pass-pipeline='builtin.module(transformer-cpu-select-target{cpu=haswell threads=4},func.func(transformer-cpu-fuse-epilogues))' --split-input-file | FileCheck %s --check-prefix=FOUR

// linear + GELU (as transformer-cpu-prepare-contractions leaves it): one
// scf.forall over 128x256 cache tiles; per tile the bias broadcast into a
// temporary of the tile's size, the contraction accumulating there, and the
// GELU reading it and writing the tile of the result, once.
// CHECK-LABEL: func.func @linear_gelu
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<128x768xf32>, %[[W:[a-z0-9]+]]: tensor<768x3072xf32>, %[[B:[a-z0-9]+]]: tensor<3072xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<128x3072xf32>
// CHECK:         %[[R:.*]] = scf.forall (%[[I:.*]], %[[J:.*]]) = (0, 0) to (128, 3072) step (128, 256) shared_outs(%[[O:.*]] = %[[E]])
// CHECK:           %[[T:.*]] = tensor.empty() : tensor<128x256xf32>
// CHECK-DAG:       %[[XS:.*]] = tensor.extract_slice %[[X]][%[[I]], 0] [128, 768]
// CHECK-DAG:       %[[WS:.*]] = tensor.extract_slice %[[W]][0, %[[J]]] [768, 256]
// CHECK-DAG:       %[[BS:.*]] = tensor.extract_slice %[[B]][%[[J]]] [256]
// CHECK-DAG:       %[[OS:.*]] = tensor.extract_slice %[[O]][%[[I]], %[[J]]] [128, 256]
// CHECK:           %[[BIAS:.*]] = linalg.generic {{.*}} ins(%[[BS]] : tensor<256xf32>) outs(%[[T]] : tensor<128x256xf32>) attrs = {transformer.contraction = "epilogue"}
// CHECK:           %[[C:.*]] = linalg.contract {{.*}} {transformer.contraction = "mnk_tile"} ins(%[[XS]], %[[WS]] : tensor<128x768xf32>, tensor<768x256xf32>) outs(%[[BIAS]] : tensor<128x256xf32>)
// CHECK:           %[[G:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<128x256xf32>) outs(%[[OS]] : tensor<128x256xf32>) attrs = {transformer.contraction = "epilogue"}
// CHECK:             math.tanh
// CHECK:           tensor.parallel_insert_slice %[[G]] into %[[O]][%[[I]], %[[J]]] [128, 256]
// CHECK:         return %[[R]]
#bcast = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @linear_gelu(%x: tensor<128x768xf32>, %w: tensor<768x3072xf32>, %b: tensor<3072xf32>) -> tensor<128x3072xf32> {
  %c = arith.constant 0.797884583 : f32
  %e = tensor.empty() : tensor<128x3072xf32>
  %bias = linalg.generic {indexing_maps = [#bcast, #id], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<3072xf32>) outs(%e : tensor<128x3072xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<128x3072xf32>
  %y = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] {transformer.contraction = "mnk"} ins(%x, %w : tensor<128x768xf32>, tensor<768x3072xf32>) outs(%bias : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<128x3072xf32>) outs(%e : tensor<128x3072xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %c : f32
    %t = math.tanh %s : f32
    %r = arith.mulf %in, %t : f32
    linalg.yield %r : f32
  } -> tensor<128x3072xf32>
  return %g : tensor<128x3072xf32>
}

// -----

// In an outlined kernel the caller passes the result's buffer (%out, the
// GELU's init). The GELU updates the accumulator in place, so the
// accumulator starts in %out: the tiles' shared output is %out, not the
// kernel's own tensor.empty (which bufferization would allocate on every
// call, returning it and leaving %out unused). The result fits in the L2:
// no tile temporary.
// CHECK-LABEL: func.func @destination_argument
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: tensor<32x64xf32>
// CHECK-NOT:     tensor.empty
// CHECK:         scf.for {{.*}} iter_args(%[[O:.*]] = %[[OUT]])
// CHECK:           scf.for {{.*}} iter_args(%[[O2:.*]] = %[[O]])
// CHECK:             %[[OS:.*]] = tensor.extract_slice %[[O2]]
// CHECK:             %[[BIAS:.*]] = linalg.generic {{.*}} outs(%[[OS]] : tensor<32x64xf32>)
// CHECK:             linalg.contract {{.*}} outs(%[[BIAS]] : tensor<32x64xf32>)
func.func @destination_argument(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>, %b: tensor<64xf32>, %out: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %e = tensor.empty() : tensor<32x64xf32>
  %bias = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<64xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<32x64xf32>
  %y = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] {transformer.contraction = "mnk"} ins(%x, %w : tensor<32x16xf32>, tensor<16x64xf32>) outs(%bias : tensor<32x64xf32>) -> tensor<32x64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<32x64xf32>) outs(%out : tensor<32x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<32x64xf32>
  return %g : tensor<32x64xf32>
}

// -----

// A zero-filled matmul whose result gets a residual add and a scale (the
// residual is the add's other input, its slice is read per tile), dynamic
// sizes: the fill, the contraction, the add and the scale in one tile. The
// accumulator is a slice of the tile's largest size (258 x 256), the scale
// writes the result's slice.
// CHECK-LABEL: func.func @residual_scale
// CHECK-SAME:    %[[R:[a-z0-9]+]]: tensor<?x?xf32>
// CHECK:         scf.forall {{.*}} step (258, 256) shared_outs(%[[O:.*]] = %{{.*}})
// CHECK:           %[[T:.*]] = tensor.empty() : tensor<258x256xf32>
// CHECK:           %[[RS:.*]] = tensor.extract_slice %[[R]]
// CHECK:           %[[OS:.*]] = tensor.extract_slice %[[O]]
// CHECK:           %[[TS:.*]] = tensor.extract_slice %[[T]][0, 0]
// CHECK:           %[[F:.*]] = linalg.fill {transformer.contraction = "epilogue"} {{.*}} outs(%[[TS]] :
// CHECK:           %[[C:.*]] = linalg.matmul {transformer.contraction = "mnk_tile"} {{.*}} outs(%[[F]] :
// CHECK:           %[[A:.*]] = linalg.generic {{.*}} ins(%[[RS]] : tensor<?x?xf32>) outs(%[[C]] : tensor<?x?xf32>) attrs = {transformer.contraction = "epilogue"}
// CHECK:           %[[S:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<?x?xf32>) outs(%[[OS]] : tensor<?x?xf32>) attrs = {transformer.contraction = "epilogue"}
// CHECK:           tensor.parallel_insert_slice %[[S]]
// CHECK-NOT:     linalg.
// CHECK:         return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @residual_scale(%r: tensor<?x?xf32>, %a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%r, %y : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %v = arith.addf %in0, %in1 : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %t = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.mulf %in, %half : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

// -----

// The result is also returned: the GELU is not fused (it would need the
// whole result first); the contraction and its bias are still tiled. An
// epilogue with math.erf (exact GELU) is fused and tagged for vectorization
// (transformer-cpu-codegen makes erf a polynomial). A batched contraction
// gets one batch per tile. Both have fewer than 2^20 flops: their tiles are
// plain loops (the calling thread runs them), not an scf.forall, of one
// tile each (the problem is smaller than the cache tile).
// CHECK-LABEL: func.func @shared_result
// CHECK-NOT:     scf.forall
// CHECK:         %[[R:.*]] = scf.for {{.*}} step %c64
// CHECK:           linalg.contract {{.*}}"mnk_tile"
// CHECK-NOT:       math.tanh
// CHECK:         }
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} ins(%[[R]] :
// CHECK-NOT:       transformer.contraction
// CHECK:           math.tanh
// CHECK:         return %[[R]], %[[G]]
func.func @shared_result(%x: tensor<64x32xf32>, %w: tensor<32x48xf32>, %acc: tensor<64x48xf32>) -> (tensor<64x48xf32>, tensor<64x48xf32>) {
  %e = tensor.empty() : tensor<64x48xf32>
  %y = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] {transformer.contraction = "mnk"} ins(%x, %w : tensor<64x32xf32>, tensor<32x48xf32>) outs(%acc : tensor<64x48xf32>) -> tensor<64x48xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<64x48xf32>) outs(%e : tensor<64x48xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<64x48xf32>
  return %y, %g : tensor<64x48xf32>, tensor<64x48xf32>
}

// CHECK-LABEL: func.func @erf_batched
// CHECK-NOT:     scf.forall
// CHECK:         scf.for {{.*}} step %c64
// CHECK:           linalg.batch_matmul {transformer.contraction = "bmnk_tile"}
// CHECK:           linalg.generic {{.*}} attrs = {transformer.contraction = "bepilogue"}
// CHECK:             math.erf
func.func @erf_batched(%a: tensor<2x64x32xf32>, %b: tensor<2x32x48xf32>, %acc: tensor<2x64x48xf32>) -> tensor<2x64x48xf32> {
  %y = linalg.batch_matmul {transformer.contraction = "bmnk"} ins(%a, %b : tensor<2x64x32xf32>, tensor<2x32x48xf32>) outs(%acc : tensor<2x64x48xf32>) -> tensor<2x64x48xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%y : tensor<2x64x48xf32>) {
  ^bb0(%out: f32):
    %t = math.erf %out : f32
    linalg.yield %t : f32
  } -> tensor<2x64x48xf32>
  return %g : tensor<2x64x48xf32>
}

// -----

// A 128 x 768 result makes 3 cache tiles of 128 x 256: an odd count that
// two threads cannot share evenly. The n tile is halved (6 tiles of
// 128 x 128), so that each tile still reads its slice of B once.
// CHECK-LABEL: func.func @balanced_tiles
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (128, 768) step (128, 128)
// One thread keeps the 3 tiles of 256 columns; three threads share them
// as they are; four get 12 tiles of 64 columns (6 would leave two idle
// half the time).
// ONE-LABEL:     func.func @balanced_tiles
// ONE:           scf.forall ({{.*}}) = (0, 0) to (128, 768) step (128, 256)
// THREE-LABEL:   func.func @balanced_tiles
// THREE:         scf.forall ({{.*}}) = (0, 0) to (128, 768) step (128, 256)
// FOUR-LABEL:    func.func @balanced_tiles
// FOUR:          scf.forall ({{.*}}) = (0, 0) to (128, 768) step (128, 64)
func.func @balanced_tiles(%a: tensor<128x64xf32>, %b: tensor<64x768xf32>, %c: tensor<128x768xf32>) -> tensor<128x768xf32> {
  %0 = linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : tensor<128x64xf32>, tensor<64x768xf32>) outs(%c : tensor<128x768xf32>) -> tensor<128x768xf32>
  return %0 : tensor<128x768xf32>
}

// -----

// 9 tiles (GPT-2's 2304-column QKV projection) become 18; 12 stay 12.
// CHECK-LABEL: func.func @balanced_nine_tiles
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (128, 2304) step (128, 128)
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (128, 3072) step (128, 256)
// Three threads share 9 and 12 tiles as they are. Four: 9 tiles become 36
// of 64 columns (18 is not a multiple of 4); 12 stay 12.
// THREE-LABEL:   func.func @balanced_nine_tiles
// THREE:         scf.forall ({{.*}}) = (0, 0) to (128, 2304) step (128, 256)
// THREE:         scf.forall ({{.*}}) = (0, 0) to (128, 3072) step (128, 256)
// FOUR-LABEL:    func.func @balanced_nine_tiles
// FOUR:          scf.forall ({{.*}}) = (0, 0) to (128, 2304) step (128, 64)
// FOUR:          scf.forall ({{.*}}) = (0, 0) to (128, 3072) step (128, 256)
func.func @balanced_nine_tiles(%a: tensor<128x64xf32>, %b: tensor<64x2304xf32>, %c: tensor<128x2304xf32>, %d: tensor<64x3072xf32>, %e: tensor<128x3072xf32>) -> (tensor<128x2304xf32>, tensor<128x3072xf32>) {
  %0 = linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : tensor<128x64xf32>, tensor<64x2304xf32>) outs(%c : tensor<128x2304xf32>) -> tensor<128x2304xf32>
  %1 = linalg.matmul {transformer.contraction = "mnk"} ins(%a, %d : tensor<128x64xf32>, tensor<64x3072xf32>) outs(%e : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  return %0, %1 : tensor<128x2304xf32>, tensor<128x3072xf32>
}

// -----

// 19 tiles of 256 columns (Qwen2's 4864-column MLP, tokens as a dynamic m:
// one row of tiles) would idle one of two threads for a twentieth of the
// time; 38 of 128 columns share evenly. Three threads: 38 tiles leave 1/39
// idle, under the 3% allowed. Four: 76 of 64 columns. One thread keeps 19.
// CHECK-LABEL: func.func @balanced_nineteen_tiles
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (%{{.*}}, 4864) step (258, 128)
// ONE-LABEL:     func.func @balanced_nineteen_tiles
// ONE:           scf.forall ({{.*}}) = (0, 0) to (%{{.*}}, 4864) step (258, 256)
// THREE-LABEL:   func.func @balanced_nineteen_tiles
// THREE:         scf.forall ({{.*}}) = (0, 0) to (%{{.*}}, 4864) step (132, 128)
// FOUR-LABEL:    func.func @balanced_nineteen_tiles
// FOUR:          scf.forall ({{.*}}) = (0, 0) to (%{{.*}}, 4864) step (132, 64)
func.func @balanced_nineteen_tiles(%a: tensor<?x64xf32>, %b: tensor<64x4864xf32>, %c: tensor<?x4864xf32>) -> tensor<?x4864xf32> {
  %0 = linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : tensor<?x64xf32>, tensor<64x4864xf32>) outs(%c : tensor<?x4864xf32>) -> tensor<?x4864xf32>
  return %0 : tensor<?x4864xf32>
}

// -----

// haswell's cache tile has 258 rows (its L2 holds a 258 x 256 block of A):
// B's k blocks are packed once per tile along m, so tall tiles pack them
// half as often. They are kept while the threads (2 here) get at least 8
// tiles each: 2064 x 1024 makes 8 x 4; 512 x 512 would make 2 x 2, so it
// gets tiles of 132 rows (4 x 2).
// CHECK-LABEL: func.func @tall_tiles
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (2064, 1024) step (258, 256)
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (512, 512) step (132, 256)
func.func @tall_tiles(%a: tensor<2064x64xf32>, %b: tensor<64x1024xf32>, %c: tensor<2064x1024xf32>, %d: tensor<512x64xf32>, %e: tensor<64x512xf32>, %f: tensor<512x512xf32>) -> (tensor<2064x1024xf32>, tensor<512x512xf32>) {
  %0 = linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : tensor<2064x64xf32>, tensor<64x1024xf32>) outs(%c : tensor<2064x1024xf32>) -> tensor<2064x1024xf32>
  %1 = linalg.matmul {transformer.contraction = "mnk"} ins(%d, %e : tensor<512x64xf32>, tensor<64x512xf32>) outs(%f : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %0, %1 : tensor<2064x1024xf32>, tensor<512x512xf32>
}

// -----

// No multiple of haswell's 6 register rows divides 1040: tiles of 258 rows
// would leave a last one of 8 (a fifth of the work missing from one
// thread's share); 4 of 210 and one of 200 are about equal. The columns
// divide (208).
// CHECK-LABEL: func.func @even_row_tiles
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (1040, 1040) step (210, 208)
// ONE-LABEL:     func.func @even_row_tiles
// ONE:           scf.forall ({{.*}}) = (0, 0) to (1040, 1040) step (210, 208)
func.func @even_row_tiles(%a: tensor<1040x64xf32>, %b: tensor<64x1040xf32>, %c: tensor<1040x1040xf32>) -> tensor<1040x1040xf32> {
  %0 = linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : tensor<1040x64xf32>, tensor<64x1040xf32>) outs(%c : tensor<1040x1040xf32>) -> tensor<1040x1040xf32>
  return %0 : tensor<1040x1040xf32>
}

// -----

// Too few columns to split (64: one tile), 3 tiles along m (396 rows, 3 x
// 132): the m tile is halved instead (6 tiles of 66 x 64).
// CHECK-LABEL: func.func @balanced_rows
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (396, 64) step (66, 64)
func.func @balanced_rows(%a: tensor<396x64xf32>, %b: tensor<64x64xf32>, %c: tensor<396x64xf32>) -> tensor<396x64xf32> {
  %0 = linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : tensor<396x64xf32>, tensor<64x64xf32>) outs(%c : tensor<396x64xf32>) -> tensor<396x64xf32>
  return %0 : tensor<396x64xf32>
}

// -----

// B's transposed copy (a linear's weight, n x k) with one cache tile along m:
// made per cache tile and per k block of 256, written by vector code
// straight into panels of the register tile's width (one buffer of the
// tile, [16, 256, 16] with AVX2: 8 x 8 tiles of W transposed in registers),
// which the contraction reads through the panel map.
// CHECK-LABEL: func.func @linear_transposed_tiles
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<128x768xf32>, %[[W:[a-z0-9]+]]: tensor<512x768xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         scf.forall (%[[I:.*]], %[[J:.*]]) = (0, 0) to (128, 512) step (128, 256)
// CHECK:           %[[WS:.*]] = tensor.extract_slice %[[W]][%[[J]], 0] [256, 768]
// CHECK:           %[[PANELS:.*]] = tensor.empty() : tensor<16x256x16xf32>
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:             %[[WB:.*]] = tensor.extract_slice %[[WS]][0, %[[K]]] [256, 256]
// CHECK:             %[[T:.*]] = scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[P:.*]] = %[[PANELS]])
// CHECK:               %[[PANEL:.*]] = arith.divui %[[R]]
// CHECK:               %[[COLUMN:.*]] = arith.remui %[[R]]
// CHECK:               scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:                 vector.transfer_read %[[WB]][%[[R]], %[[C]]]{{.*}} : tensor<256x256xf32>, vector<8x8xf32>
// CHECK-COUNT-24:        vector.shuffle
// CHECK:                 vector.transfer_write %{{.*}}[%[[PANEL]], %[[C]], %[[COLUMN]]] {{.*}} : vector<8xf32>, tensor<16x256x16xf32>
// CHECK-COUNT-7:         vector.transfer_write {{.*}} : vector<8xf32>, tensor<16x256x16xf32>
// CHECK:             linalg.generic {{.*}} ins(%{{.*}}, %[[T]] : tensor<128x256xf32>, tensor<16x256x16xf32>) {{.*}} attrs = {transformer.contraction = "mnk_tile"}
// CHECK:             scf.yield
// CHECK:           tensor.parallel_insert_slice
// CHECK-NOT:     linalg.transpose
func.func @linear_transposed_tiles(%x: tensor<128x768xf32>, %w: tensor<512x768xf32>) -> tensor<128x512xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x512xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<128x512xf32>) -> tensor<128x512xf32>
  %te = tensor.empty() : tensor<768x512xf32>
  %wt = linalg.transpose ins(%w : tensor<512x768xf32>) outs(%te : tensor<768x512xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  %y = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] {transformer.contraction = "mnk"} ins(%x, %wt : tensor<128x768xf32>, tensor<768x512xf32>) outs(%z : tensor<128x512xf32>) -> tensor<128x512xf32>
  return %y : tensor<128x512xf32>
}

// -----

// The same with a K that is no multiple of the 8 lanes (772): no panels; the
// transposed copy is made per k block of 256 as a k x n block (the last
// block of 4 rows), which the contraction reads as it is.
// CHECK-LABEL: func.func @linear_transposed_blocks
// CHECK:         scf.forall
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:             %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<256x?xf32>) outs(%{{.*}} : tensor<?x256xf32>) permutation = [1, 0] {transformer.contraction = "transpose_tile"}
// CHECK:             linalg.contract {{.*}} {transformer.contraction = "mnk_tile"} ins(%{{.*}}, %[[T]] : tensor<128x?xf32>, tensor<?x256xf32>)
func.func @linear_transposed_blocks(%x: tensor<128x772xf32>, %w: tensor<512x772xf32>) -> tensor<128x512xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x512xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<128x512xf32>) -> tensor<128x512xf32>
  %te = tensor.empty() : tensor<772x512xf32>
  %wt = linalg.transpose ins(%w : tensor<512x772xf32>) outs(%te : tensor<772x512xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  %y = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] {transformer.contraction = "mnk"} ins(%x, %wt : tensor<128x772xf32>, tensor<772x512xf32>) outs(%z : tensor<128x512xf32>) -> tensor<128x512xf32>
  return %y : tensor<128x512xf32>
}

// -----

// With more than 4 cache tiles along m (640 rows), the transposed copy is
// made once, before the tiles.
// CHECK-LABEL: func.func @linear_transposed_once
// CHECK:         linalg.transpose {{.*}} {transformer.contraction = "transpose"}
// CHECK:         scf.forall
// CHECK-NOT:       linalg.transpose
// CHECK:           linalg.contract
func.func @linear_transposed_once(%x: tensor<640x768xf32>, %w: tensor<512x768xf32>) -> tensor<640x512xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<640x512xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<640x512xf32>) -> tensor<640x512xf32>
  %te = tensor.empty() : tensor<768x512xf32>
  %wt = linalg.transpose ins(%w : tensor<512x768xf32>) outs(%te : tensor<768x512xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  %y = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] {transformer.contraction = "mnk"} ins(%x, %wt : tensor<640x768xf32>, tensor<768x512xf32>) outs(%z : tensor<640x512xf32>) -> tensor<640x512xf32>
  return %y : tensor<640x512xf32>
}

// -----

// A dynamic number of rows with 3 column tiles (768): tiles of 128 columns,
// so that 128 rows make 6 tasks for two threads rather than 3.
// CHECK-LABEL: func.func @dynamic_rows_three_column_tiles
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (%{{.*}}, 768) step (132, 128)
func.func @dynamic_rows_three_column_tiles(%x: tensor<?x3072xf32>, %w: tensor<3072x768xf32>) -> tensor<?x768xf32> {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x3072xf32>
  %e = tensor.empty(%m) : tensor<?x768xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<?x768xf32>) -> tensor<?x768xf32>
  %y = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] {transformer.contraction = "mnk"} ins(%x, %w : tensor<?x3072xf32>, tensor<3072x768xf32>) outs(%z : tensor<?x768xf32>) -> tensor<?x768xf32>
  return %y : tensor<?x768xf32>
}

// -----

// A dynamic number of rows and 128 columns (a GQA model's k and v
// projections): the tile is first narrowed to the 128 columns there are,
// and one tile would leave one of two threads idle at up to 132 rows; two
// of 64 share them. One thread keeps one tile.
// CHECK-LABEL: func.func @dynamic_rows_one_column_tile
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (%{{.*}}, 128) step (132, 64)
// ONE-LABEL:     func.func @dynamic_rows_one_column_tile
// ONE:           scf.forall ({{.*}}) = (0, 0) to (%{{.*}}, 128) step (132, 128)
func.func @dynamic_rows_one_column_tile(%x: tensor<?x896xf32>, %w: tensor<896x128xf32>) -> tensor<?x128xf32> {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x896xf32>
  %e = tensor.empty(%m) : tensor<?x128xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<?x128xf32>) -> tensor<?x128xf32>
  %y = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] {transformer.contraction = "mnk"} ins(%x, %w : tensor<?x896xf32>, tensor<896x128xf32>) outs(%z : tensor<?x128xf32>) -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

// A dynamic number of rows, with the accumulator given by the caller (a
// kernel argument) and a bias add: the bounds of the cache tiles are read
// from the accumulator, not from the unfused contraction, which is then gone
// (the whole product was computed twice when a tensor.dim of its result
// kept it alive).
// CHECK-LABEL: func.func @dynamic_rows_epilogue
// CHECK-SAME:    %{{[a-z0-9]+}}: tensor<?x64xf32>, %{{[a-z0-9]+}}: tensor<64x256xf32>, %[[ACC:[a-z0-9]+]]: tensor<?x256xf32>
// CHECK:         %[[M:.*]] = tensor.dim %[[ACC]], %c0
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (%[[M]], 256) step (132, 128) shared_outs(%{{.*}} = %[[ACC]])
// CHECK:           linalg.contract {{.*}} {transformer.contraction = "mnk_tile"}
// CHECK:           linalg.generic {{.*}} attrs = {transformer.contraction = "epilogue"}
// CHECK-NOT:     linalg.contract
func.func @dynamic_rows_epilogue(%x: tensor<?x64xf32>, %w: tensor<64x256xf32>, %acc: tensor<?x256xf32>, %b: tensor<256xf32>, %out: tensor<?x256xf32>) -> tensor<?x256xf32> {
  %y = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] {transformer.contraction = "mnk"} ins(%x, %w : tensor<?x64xf32>, tensor<64x256xf32>) outs(%acc : tensor<?x256xf32>) -> tensor<?x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y, %b : tensor<?x256xf32>, tensor<256xf32>) outs(%out : tensor<?x256xf32>) {
  ^bb0(%in: f32, %in_0: f32, %o: f32):
    %s = arith.addf %in, %in_0 : f32
    linalg.yield %s : f32
  } -> tensor<?x256xf32>
  return %r : tensor<?x256xf32>
}

// -----

// A dynamic number of rows and one column tile that cannot be split (64
// columns, the whole width): tiles of half the rows (66), once.
// CHECK-LABEL: func.func @dynamic_rows_narrow
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (%{{.*}}, 64) step (66, 64)
func.func @dynamic_rows_narrow(%x: tensor<?x64xf32>, %w: tensor<64x64xf32>, %acc: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %y = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] {transformer.contraction = "mnk"} ins(%x, %w : tensor<?x64xf32>, tensor<64x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// A zero-filled matmul without an epilogue whose 4 MiB result is larger
// than the L2: each cache tile accumulates into a temporary of its size
// (made at the start of the tile) and a copy writes the result's slice.
// One of 64 KiB (below the L2: it may still be in cache) accumulates in
// the result's slice, as before.
// CHECK-LABEL: func.func @tile_temporary
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (1024, 1024) step (258, 256) shared_outs(%[[O:.*]] = %{{.*}})
// CHECK:           %[[T:.*]] = tensor.empty() : tensor<258x256xf32>
// CHECK:           %[[OS:.*]] = tensor.extract_slice %[[O]]
// CHECK:           %[[TS:.*]] = tensor.extract_slice %[[T]][0, 0]
// CHECK:           %[[F:.*]] = linalg.fill {transformer.contraction = "epilogue"} {{.*}} outs(%[[TS]] :
// CHECK:           %[[C:.*]] = linalg.matmul {transformer.contraction = "mnk_tile"} {{.*}} outs(%[[F]] :
// CHECK:           %[[W:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<?x256xf32>) outs(%[[OS]] : tensor<?x256xf32>) attrs = {transformer.contraction = "epilogue"}
// CHECK-NEXT:      ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:        linalg.yield %[[IN]] : f32
// CHECK:           tensor.parallel_insert_slice %[[W]] into %[[O]]
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (128, 128) step (128, 64) shared_outs(%[[O2:.*]] = %{{.*}})
// CHECK-NOT:       tensor.empty
// CHECK:           %[[OS2:.*]] = tensor.extract_slice %[[O2]]
// CHECK:           %[[F2:.*]] = linalg.fill {transformer.contraction = "epilogue"} {{.*}} outs(%[[OS2]] :
// CHECK:           %[[C2:.*]] = linalg.matmul {transformer.contraction = "mnk_tile"} {{.*}} outs(%[[F2]] :
// CHECK:           tensor.parallel_insert_slice %[[C2]] into %[[O2]]
func.func @tile_temporary(%a: tensor<1024x256xf32>, %b: tensor<256x1024xf32>, %x: tensor<128x128xf32>, %y: tensor<128x128xf32>) -> (tensor<1024x1024xf32>, tensor<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %0 = linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : tensor<1024x256xf32>, tensor<256x1024xf32>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %e2 = tensor.empty() : tensor<128x128xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<128x128xf32>) -> tensor<128x128xf32>
  %1 = linalg.matmul {transformer.contraction = "mnk"} ins(%x, %y : tensor<128x128xf32>, tensor<128x128xf32>) outs(%f2 : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0, %1 : tensor<1024x1024xf32>, tensor<128x128xf32>
}

// -----

// Two contractions of the same rows by two weights in panels, fused as
// siblings: their zero-filled accumulator is replaced in the tiles, and
// no dead fill of the whole result is left before the tiles (bufferized,
// it was a buffer of all rows zeroed on every call and freed unread).
// CHECK-LABEL: func.func @gated_no_dead_fill(
// CHECK-NOT:     linalg.generic
// CHECK:         scf.forall
#pa = affine_map<(d0, d1, d2) -> (d0, d2)>
#pb = affine_map<(d0, d1, d2) -> (d1 floordiv 16, d2, d1 mod 16)>
#pc = affine_map<(d0, d1, d2) -> (d0, d1)>
#pid = affine_map<(d0, d1) -> (d0, d1)>
func.func @gated_no_dead_fill(%x: tensor<?x64xf32>, %g: tensor<8x64x16xf32>, %u: tensor<8x64x16xf32>, %dest: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%rows) : tensor<?x128xf32>
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %fill = linalg.generic {indexing_maps = [#pid], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<?x128xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  } -> tensor<?x128xf32>
  %gate = linalg.generic {indexing_maps = [#pa, #pb, #pc], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %g : tensor<?x64xf32>, tensor<8x64x16xf32>) outs(%fill : tensor<?x128xf32>) attrs = {transformer.contraction = "mnk"} {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %p = arith.mulf %in, %w : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x128xf32>
  %up = linalg.generic {indexing_maps = [#pa, #pb, #pc], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %u : tensor<?x64xf32>, tensor<8x64x16xf32>) outs(%fill : tensor<?x128xf32>) attrs = {transformer.contraction = "mnk"} {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %p = arith.mulf %in, %w : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x128xf32>
  %m = linalg.generic {indexing_maps = [#pid, #pid, #pid], iterator_types = ["parallel", "parallel"]} ins(%gate, %up : tensor<?x128xf32>, tensor<?x128xf32>) outs(%dest : tensor<?x128xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %a, %d : f32
    %r = arith.mulf %s, %b : f32
    linalg.yield %r : f32
  } -> tensor<?x128xf32>
  return %m : tensor<?x128xf32>
}
