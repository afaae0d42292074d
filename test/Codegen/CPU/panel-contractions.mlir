// RUN: transformer-opt %s --pass-pipeline='builtin.module(transformer-cpu-select-target{cpu=haswell threads=2},func.func(transformer-cpu-fuse-epilogues,transformer-cpu-panel-contractions),canonicalize)' | FileCheck %s
// Without cache tiles (no fuse-epilogues): B copied back in k x n order.
// RUN: transformer-opt %s --pass-pipeline='builtin.module(transformer-cpu-select-target{cpu=haswell threads=2},func.func(transformer-cpu-panel-contractions))' | FileCheck %s --check-prefix=COPY
// RUN: transformer-opt %s --pass-pipeline='builtin.module(transformer-cpu-select-target{cpu=skylake-avx512 threads=2},func.func(transformer-cpu-fuse-epilogues,transformer-cpu-panel-contractions),canonicalize)' | FileCheck %s --check-prefix=PARTIAL

// A contraction that reads a weight copied in panels of 16 columns (as
// transformer-cpu-cache-constant-weights leaves it, AVX2's register tile):
// each cache tile (128 x 48: three panels) runs the k blocks of 256 and then
// the rest (76), and in each the panels one by one: a plain contraction of
// the tile's rows by the panel's k block, a [k, 16] slice of the copy, into
// the panel's 16 columns. (K = 1100: the tile's rows of A and a panel of
// the whole depth would fill more than half the L2.)
// CHECK-DAG: #[[$FIRST:.*]] = affine_map<(d0) -> (d0 floordiv 16)>
// CHECK-DAG: #[[$COLUMN:.*]] = affine_map<(d0) -> (d0 * 16)>
// CHECK-LABEL: func.func @tile(
// CHECK-SAME: %[[X:[^:]*]]: tensor<128x1100xf32>, %[[P:[^:]*]]: tensor<6x1100x16xf32>, %[[ACC:[^:]*]]: tensor<128x96xf32>
// CHECK: scf.forall (%[[J:.*]]) = (0) to (96) step (48) shared_outs(%[[O:.*]] = %[[ACC]])
// CHECK:   %[[F:.*]] = affine.apply #[[$FIRST]](%[[J]])
// CHECK:   %[[TP:.*]] = tensor.extract_slice %[[P]][%[[F]], 0, 0] [3, 1100, 16] [1, 1, 1]
// CHECK:   %[[TC:.*]] = tensor.extract_slice %[[O]][0, %[[J]]] [128, 48] [1, 1]
// CHECK:   %[[FULL:.*]] = scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A0:.*]] = %[[TC]])
// CHECK:     scf.for %[[PI:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A1:.*]] = %[[A0]])
// CHECK:       %[[XK:.*]] = tensor.extract_slice %[[X]][0, %[[K0]]] [128, 256] [1, 1]
// CHECK:       %[[BK:.*]] = tensor.extract_slice %[[TP]][%[[PI]], %[[K0]], 0] [1, 256, 16] [1, 1, 1] : tensor<3x1100x16xf32> to tensor<256x16xf32>
// CHECK:       %[[COL:.*]] = affine.apply #[[$COLUMN]](%[[PI]])
// CHECK:       %[[CP:.*]] = tensor.extract_slice %[[A1]][0, %[[COL]]] [128, 16] [1, 1]
// CHECK:       %[[U:.*]] = linalg.contract {{.*}} {transformer.contraction = "mnk_panel"} ins(%[[XK]], %[[BK]] : tensor<128x256xf32>, tensor<256x16xf32>) outs(%[[CP]] : tensor<128x16xf32>)
// CHECK:       tensor.insert_slice %[[U]] into %[[A1]][0, %[[COL]]] [128, 16] [1, 1]
// CHECK:   %[[REST:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[FULL]])
// CHECK:     tensor.extract_slice %[[X]][0, 1024] [128, 76] [1, 1]
// CHECK:     tensor.extract_slice %[[TP]][%{{.*}}, 1024, 0] [1, 76, 16] [1, 1, 1] : tensor<3x1100x16xf32> to tensor<76x16xf32>
// CHECK:     linalg.contract {{.*}} {transformer.contraction = "mnk_panel"} {{.*}} -> tensor<128x16xf32>
// CHECK:   tensor.parallel_insert_slice %[[REST]] into %[[O]][0, %[[J]]] [128, 48] [1, 1]
// CHECK-NOT: floordiv 16, d2

// COPY-LABEL: func.func @tile(
// COPY-SAME: %[[X:[^:]*]]: tensor<128x1100xf32>, %[[P:[^:]*]]: tensor<6x1100x16xf32>, %[[ACC:[^:]*]]: tensor<128x96xf32>
// COPY: %[[E:.*]] = tensor.empty() : tensor<1100x6x16xf32>
// COPY: %[[T:.*]] = linalg.transpose ins(%[[P]] : tensor<6x1100x16xf32>) outs(%[[E]] : tensor<1100x6x16xf32>) permutation = [1, 0, 2]
// COPY: %[[B:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0], [1, 2]] : tensor<1100x6x16xf32> into tensor<1100x96xf32>
// COPY: linalg.generic {indexing_maps = [#{{.*}}, #[[$KN:[a-z0-9]+]], #{{.*}}]{{.*}} ins(%[[X]], %[[B]] : tensor<128x1100xf32>, tensor<1100x96xf32>) outs(%[[ACC]] : tensor<128x96xf32>) attrs = {transformer.contraction = "mnk"}
#a = affine_map<(m, n, k) -> (m, k)>
#p = affine_map<(m, n, k) -> (n floordiv 16, k, n mod 16)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @tile(%x: tensor<128x1100xf32>, %panels: tensor<6x1100x16xf32>, %acc: tensor<128x96xf32>) -> tensor<128x96xf32> {
  %y = linalg.generic {indexing_maps = [#a, #p, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %panels : tensor<128x1100xf32>, tensor<6x1100x16xf32>) outs(%acc : tensor<128x96xf32>) attrs = {transformer.contraction = "mnk"} {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %0 = arith.mulf %in, %w : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<128x96xf32>
  return %y : tensor<128x96xf32>
}

// The last cache tile of 704 columns in tiles of 128 is 64 wide, a number
// of panels known only in the loop: the tile reads its panels' slice, as
// many as the tiling gives, and loops over them. (Its dynamic rows count as
// the target's cache tile's, whose rows of A and a panel of the whole depth
// fit half the L2: one k block.)
// PARTIAL-LABEL: func.func @partial(
// PARTIAL-SAME: %{{[^:]*}}: tensor<?x256xf32>, %[[P:[^:]*]]: tensor<22x256x32xf32>
// PARTIAL: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (%{{.*}}, 704) step (128, 128)
// PARTIAL:   %[[TP:.*]] = tensor.extract_slice %[[P]][%{{.*}}, 0, 0] [%[[N:.*]], 256, 32] [1, 1, 1] : tensor<22x256x32xf32> to tensor<?x256x32xf32>
// PARTIAL:   scf.for %[[PI:.*]] = %{{.*}} to %[[N]] step %{{.*}}
// PARTIAL:     tensor.extract_slice %[[TP]][%[[PI]], 0, 0] [1, 256, 32] [1, 1, 1]
// PARTIAL:     linalg.contract {{.*}} {transformer.contraction = "mnk_panel"} {{.*}} -> tensor<?x32xf32>
#p32 = affine_map<(m, n, k) -> (n floordiv 32, k, n mod 32)>
func.func @partial(%x: tensor<?x256xf32>, %panels: tensor<22x256x32xf32>, %acc: tensor<?x704xf32>) -> tensor<?x704xf32> {
  %y = linalg.generic {indexing_maps = [#a, #p32, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %panels : tensor<?x256xf32>, tensor<22x256x32xf32>) outs(%acc : tensor<?x704xf32>) attrs = {transformer.contraction = "mnk"} {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %0 = arith.mulf %in, %w : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<?x704xf32>
  return %y : tensor<?x704xf32>
}

// bf16 panels: each panel's k block is widened to f32 once per cache tile
// and k block, into one buffer made before the k loop (two vectors of 16
// per row of 32 columns), and the register tiles' contraction reads that:
// they do not each widen every vector of B they load. (The AVX2 run, 8
// lanes, widens four vectors per row.)
// PARTIAL-LABEL: func.func @widened(
// PARTIAL-SAME: %{{[^:]*}}: tensor<128x512xf32>, %[[P:[^:]*]]: tensor<4x512x32xbf16>
// PARTIAL: scf.forall
// PARTIAL:   %[[BUF:.*]] = tensor.empty() : tensor<[[KB:[0-9]+]]x32xf32>
// PARTIAL:   scf.for
// PARTIAL:     scf.for
// PARTIAL:       %[[BK:.*]] = tensor.extract_slice %{{.*}} : tensor<{{.*}}x512x32xbf16> to tensor<[[KB]]x32xbf16>
// PARTIAL:       %[[W:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[O:.*]] = %[[BUF]]) -> (tensor<[[KB]]x32xf32>)
// PARTIAL:         %[[V0:.*]] = vector.transfer_read %[[BK]][%[[K]], %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<[[KB]]x32xbf16>, vector<16xbf16>
// PARTIAL:         %[[F0:.*]] = arith.extf %[[V0]] : vector<16xbf16> to vector<16xf32>
// PARTIAL:         %[[O0:.*]] = vector.transfer_write %[[F0]], %[[O]][%[[K]], %{{.*}}]
// PARTIAL:         vector.transfer_read %[[BK]][%[[K]], %c16{{.*}}]
// PARTIAL:         arith.extf
// PARTIAL:         vector.transfer_write %{{.*}}, %[[O0]][%[[K]], %c16{{.*}}]
// PARTIAL:       linalg.contract {{.*}} {transformer.contraction = "mnk_panel"} ins(%{{.*}}, %[[W]] : tensor<{{.*}}x[[KB]]xf32>, tensor<[[KB]]x32xf32>)
#p32b = affine_map<(m, n, k) -> (n floordiv 32, k, n mod 32)>
func.func @widened(%x: tensor<128x512xf32>, %panels: tensor<4x512x32xbf16>, %acc: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %y = linalg.generic {indexing_maps = [#a, #p32b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %panels : tensor<128x512xf32>, tensor<4x512x32xbf16>) outs(%acc : tensor<128x128xf32>) attrs = {transformer.contraction = "mnk"} {
  ^bb0(%in: f32, %w: bf16, %out: f32):
    %e = arith.extf %w : bf16 to f32
    %0 = arith.mulf %in, %e : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<128x128xf32>
  return %y : tensor<128x128xf32>
}

// Two contractions of the same rows by two weights in panels, combined by
// one element-wise op (silu(x gate) * (x up)): the same cache tiles compute
// both, each with its loop over panels. Each accumulates into a temporary
// of the tile's largest size (132 x 64, sliced to the tile's rows), made in
// the tile, that stays in cache; the epilogue reads both and writes the
// result's tile.
// CHECK-LABEL: func.func @gated(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x64xf32>, %[[G:[^:]*]]: tensor<8x64x16xf32>, %[[U:[^:]*]]: tensor<8x64x16xf32>
// CHECK: scf.forall (%[[I:.*]], %[[J:.*]]) = (0, 0) to (%{{.*}}, 128) step (132, 64) shared_outs(%[[O:.*]] = %{{.*}})
// CHECK:   %[[GTMP:.*]] = tensor.empty() : tensor<132x64xf32>
// CHECK:   %[[TMP:.*]] = tensor.empty() : tensor<132x64xf32>
// CHECK:   %[[ROWS:.*]] = affine.min
// CHECK:   %[[UP:.*]] = tensor.extract_slice %[[U]][%{{.*}}, 0, 0] [4, 64, 16]
// CHECK:   %[[ACC:.*]] = tensor.extract_slice %[[TMP]][0, 0] [%[[ROWS]], 64] [1, 1]
// CHECK:   %[[ZERO:.*]] = linalg.generic {{.*}} outs(%[[ACC]] : tensor<?x64xf32>)
// CHECK:   %[[U1:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]])
// CHECK:     linalg.contract {{.*}} {transformer.contraction = "mnk_panel"}
// CHECK:   %[[GATE:.*]] = tensor.extract_slice %[[G]][%{{.*}}, 0, 0] [4, 64, 16]
// CHECK:   %[[TILE:.*]] = tensor.extract_slice %[[O]][%[[I]], %[[J]]] [%[[ROWS]], 64] [1, 1]
// CHECK:   %[[GACC:.*]] = tensor.extract_slice %[[GTMP]][0, 0] [%[[ROWS]], 64] [1, 1]
// CHECK:   %[[ZERO2:.*]] = linalg.generic {{.*}} outs(%[[GACC]] : tensor<?x64xf32>)
// CHECK:   %[[G1:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO2]])
// CHECK:     linalg.contract {{.*}} {transformer.contraction = "mnk_panel"}
// CHECK:   %[[P:.*]] = linalg.generic {{.*}} ins(%[[G1]], %[[U1]] : tensor<?x64xf32>, tensor<?x64xf32>) outs(%[[TILE]] : tensor<?x64xf32>)
// CHECK:     math.exp
// CHECK:   tensor.parallel_insert_slice %[[P]] into %[[O]][%[[I]], %[[J]]] [%[[ROWS]], 64]
#pa = affine_map<(d0, d1, d2) -> (d0, d2)>
#pb = affine_map<(d0, d1, d2) -> (d1 floordiv 16, d2, d1 mod 16)>
#pc = affine_map<(d0, d1, d2) -> (d0, d1)>
#pid = affine_map<(d0, d1) -> (d0, d1)>
func.func @gated(%x: tensor<?x64xf32>, %g: tensor<8x64x16xf32>, %u: tensor<8x64x16xf32>, %dest: tensor<?x128xf32>) -> tensor<?x128xf32> {
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

// K = 1344: no remainder block, but six blocks of 224 (the largest multiple
// of 8 from the target's 256 down to 128 that divides K), so that the
// register tiles are made once.
// CHECK-LABEL: func.func @dividing_blocks(
// CHECK: scf.forall
// CHECK:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:     tensor.extract_slice %{{.*}}[0, %{{.*}}] [128, 224] [1, 1]
// CHECK:     linalg.contract {{.*}} {transformer.contraction = "mnk_panel"} {{.*}} tensor<128x224xf32>, tensor<224x16xf32>
// CHECK-NOT: "mnk_panel"
// CHECK:   tensor.parallel_insert_slice
func.func @dividing_blocks(%x: tensor<128x1344xf32>, %panels: tensor<6x1344x16xf32>, %acc: tensor<128x96xf32>) -> tensor<128x96xf32> {
  %y = linalg.generic {indexing_maps = [#a, #p, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %panels : tensor<128x1344xf32>, tensor<6x1344x16xf32>) outs(%acc : tensor<128x96xf32>) attrs = {transformer.contraction = "mnk"} {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %0 = arith.mulf %in, %w : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<128x96xf32>
  return %y : tensor<128x96xf32>
}

// K = 300: the tile's rows of A and a panel of the whole depth fit half the
// L2, so the tile runs the whole depth as one block, whose register tiles
// load and store their accumulators once.
// CHECK-LABEL: func.func @whole_depth(
// CHECK: scf.forall
// CHECK:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:     tensor.extract_slice %{{.*}}[%{{.*}}, 0, 0] [1, 300, 16] [1, 1, 1] : tensor<3x300x16xf32> to tensor<300x16xf32>
// CHECK:     linalg.contract {{.*}} {transformer.contraction = "mnk_panel"} {{.*}} tensor<128x300xf32>, tensor<300x16xf32>
// CHECK-NOT: "mnk_panel"
// CHECK:   tensor.parallel_insert_slice
func.func @whole_depth(%x: tensor<128x300xf32>, %panels: tensor<6x300x16xf32>, %acc: tensor<128x96xf32>) -> tensor<128x96xf32> {
  %y = linalg.generic {indexing_maps = [#a, #p, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %panels : tensor<128x300xf32>, tensor<6x300x16xf32>) outs(%acc : tensor<128x96xf32>) attrs = {transformer.contraction = "mnk"} {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %0 = arith.mulf %in, %w : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<128x96xf32>
  return %y : tensor<128x96xf32>
}
