// Software prefetches of B's next k block in the register tiles' k loops.
// RUN: transformer-opt %s --transformer-cpu-prefetch-next-k-block --split-input-file | FileCheck %s
// RUN: transformer-opt %s --transformer-cpu-prefetch-next-k-block="distance=64 locality=3" --split-input-file | FileCheck %s --check-prefix=OPTS

// A register tile's k loop as the schedule leaves it: accumulators carried
// as a 2-D vector, a column of A (8 x 1) and a row of B (1 x 32) per step.
// The row 256 steps on (the loop's trip count), clamped to B's last row, is
// prefetched, one prefetch per 64-byte line: two for 32 floats.
// CHECK-LABEL: func.func @register_tile
// CHECK-SAME:    (%[[A:[a-z0-9]+]]: memref<128x3072xf32>, %[[B:[a-z0-9]+]]: memref<3072x768xf32>,
// CHECK-DAG:     %[[LAST:.*]] = arith.constant 3071 : index
// CHECK-DAG:     %[[LINE:.*]] = arith.constant 16 : index
// CHECK:         scf.for %[[K:.*]] = {{.*}} iter_args
// CHECK:           %[[ROW:.*]] = affine.apply
// CHECK:           vector.transfer_read %[[A]]
// CHECK:           %[[AHEAD:.*]] = arith.addi %[[ROW]], %c256{{.*}} : index
// CHECK:           %[[CLAMPED:.*]] = arith.minsi %[[AHEAD]], %[[LAST]] : index
// CHECK:           memref.prefetch %[[B]][%[[CLAMPED]], %[[N:.*]]], read, locality<1>, data
// CHECK:           %[[N16:.*]] = arith.addi %[[N]], %[[LINE]] : index
// CHECK:           memref.prefetch %[[B]][%[[CLAMPED]], %[[N16]]], read, locality<1>, data
// CHECK-NOT:       memref.prefetch
// CHECK:           vector.transfer_read %[[B]][%[[ROW]], %[[N]]]
// OPTS-LABEL: func.func @register_tile
// OPTS:         %[[AHEAD:.*]] = arith.constant 64 : index
// OPTS:         scf.for
// OPTS:           arith.addi %{{.*}}, %[[AHEAD]] : index
// OPTS:         memref.prefetch {{.*}} read, locality<3>, data
// OPTS:         memref.prefetch {{.*}} read, locality<3>, data
#map = affine_map<()[s0, s1] -> (s0 + s1)>
func.func @register_tile(%a: memref<128x3072xf32>, %b: memref<3072x768xf32>, %c: memref<128x768xf32>, %k0: index, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %init = vector.transfer_read %c[%m, %n], %pad {in_bounds = [true, true]} : memref<128x768xf32>, vector<8x32xf32>
  %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %init) -> (vector<8x32xf32>) {
    %row = affine.apply #map()[%k0, %k]
    %lhs = vector.transfer_read %a[%m, %row], %pad {in_bounds = [true, true]} : memref<128x3072xf32>, vector<8x1xf32>
    %rhs = vector.transfer_read %b[%row, %n], %pad {in_bounds = [true, true]} : memref<3072x768xf32>, vector<1x32xf32>
    %next = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lhs, %rhs, %acc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    scf.yield %next : vector<8x32xf32>
  }
  vector.transfer_write %r, %c[%m, %n] {in_bounds = [true, true]} : vector<8x32xf32>, memref<128x768xf32>
  return
}

// -----

// A dynamic number of rows in B: the clamp uses its dim. A batched B (rank
// 3) is indexed by its last two dimensions. One 64-byte line for 16 floats.
// CHECK-LABEL: func.func @dynamic_batched
// CHECK-SAME:    (%[[B:[a-z0-9]+]]: memref<4x?x48xf32>,
// CHECK:         %[[DIM:.*]] = memref.dim %[[B]], %c1
// CHECK:         %[[LAST:.*]] = arith.subi %[[DIM]], %c1
// CHECK:         %[[BLOCK:.*]] = arith.constant 128 : index
// CHECK:         scf.for
// CHECK:           %[[AHEAD:.*]] = arith.addi %{{.*}}, %[[BLOCK]] : index
// CHECK:           arith.minsi %[[AHEAD]], %[[LAST]] : index
// CHECK:           memref.prefetch %[[B]][%{{.*}}, %{{.*}}, %{{.*}}], read, locality<1>, data : memref<4x?x48xf32>
// CHECK-NOT:       memref.prefetch
// CHECK:           vector.transfer_read %[[B]]
func.func @dynamic_batched(%b: memref<4x?x48xf32>, %batch: index, %k0: index) -> vector<1x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %init = arith.constant dense<0.0> : vector<1x16xf32>
  %r = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %init) -> (vector<1x16xf32>) {
    %row = arith.addi %k0, %k : index
    %rhs = vector.transfer_read %b[%batch, %row, %c0], %pad {in_bounds = [true, true]} : memref<4x?x48xf32>, vector<1x16xf32>
    %next = arith.addf %acc, %rhs : vector<1x16xf32>
    scf.yield %next : vector<1x16xf32>
  }
  return %r : vector<1x16xf32>
}

// -----

// Left alone: a loop that carries no 2-D vector, dynamic bounds, a row that
// does not change with the loop, and a read that may be out of bounds.
// CHECK-LABEL: func.func @not_register_tiles
// CHECK-NOT:     memref.prefetch
func.func @not_register_tiles(%b: memref<64x64xf32>, %ub: index, %n: index) -> (vector<32xf32>, vector<1x32xf32>, vector<1x32xf32>, vector<1x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : f32
  %zero1 = arith.constant dense<0.0> : vector<32xf32>
  %zero2 = arith.constant dense<0.0> : vector<1x32xf32>
  %r1 = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero1) -> (vector<32xf32>) {
    %rhs = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true]} : memref<64x64xf32>, vector<32xf32>
    %next = arith.addf %acc, %rhs : vector<32xf32>
    scf.yield %next : vector<32xf32>
  }
  %r2 = scf.for %k = %c0 to %ub step %c1 iter_args(%acc = %zero2) -> (vector<1x32xf32>) {
    %rhs = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<64x64xf32>, vector<1x32xf32>
    %next = arith.addf %acc, %rhs : vector<1x32xf32>
    scf.yield %next : vector<1x32xf32>
  }
  %r3 = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero2) -> (vector<1x32xf32>) {
    %rhs = vector.transfer_read %b[%c0, %n], %pad {in_bounds = [true, true]} : memref<64x64xf32>, vector<1x32xf32>
    %next = arith.addf %acc, %rhs : vector<1x32xf32>
    scf.yield %next : vector<1x32xf32>
  }
  %r4 = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero2) -> (vector<1x32xf32>) {
    %rhs = vector.transfer_read %b[%k, %n], %pad : memref<64x64xf32>, vector<1x32xf32>
    %next = arith.addf %acc, %rhs : vector<1x32xf32>
    scf.yield %next : vector<1x32xf32>
  }
  return %r1, %r2, %r3, %r4 : vector<32xf32>, vector<1x32xf32>, vector<1x32xf32>, vector<1x32xf32>
}

// -----

// Rows that lie end to end (a weight in panels of the read's width, [n /
// 32, k, 32]), which the hardware prefetchers follow within a panel: the
// same row of the next panel (clamped to the last), one prefetch per line.
// CHECK-LABEL: func.func @panels(
// CHECK-SAME: %[[P:[^:]*]]: memref<4x64x32xf32>, %[[N:[^:]*]]: index
// CHECK: %[[PLUS:.*]] = arith.addi %[[N]], %{{.*}} : index
// CHECK: %[[NEXT:.*]] = arith.minsi %[[PLUS]], %{{.*}} : index
// CHECK: scf.for %[[K:[a-z0-9_]+]] =
// CHECK:   memref.prefetch %[[P]][%[[NEXT]], %[[K]], %{{.*}}], read, locality<1>, data
// CHECK:   %[[COL:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:   memref.prefetch %[[P]][%[[NEXT]], %[[K]], %[[COL]]], read, locality<1>, data
// CHECK:   vector.transfer_read %[[P]][%[[N]], %[[K]], %{{.*}}]
func.func @panels(%panels: memref<4x64x32xf32>, %n: index) -> vector<1x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<1x32xf32>
  %r = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (vector<1x32xf32>) {
    %rhs = vector.transfer_read %panels[%n, %k, %c0], %pad {in_bounds = [true, true]} : memref<4x64x32xf32>, vector<1x32xf32>
    %next = arith.addf %acc, %rhs : vector<1x32xf32>
    scf.yield %next : vector<1x32xf32>
  }
  return %r : vector<1x32xf32>
}

// -----

// A panel index computed in the loop: the next panel is computed there too.
// CHECK-LABEL: func.func @panel_in_loop(
// CHECK: scf.for %[[K:[a-z0-9_]+]] =
// CHECK:   %[[I:.*]] = arith.remui %[[K]], %{{.*}} : index
// CHECK:   %[[PLUS:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK:   %[[NEXT:.*]] = arith.minsi %[[PLUS]], %{{.*}} : index
// CHECK:   memref.prefetch %{{.*}}[%[[NEXT]], %[[K]], %{{.*}}]
func.func @panel_in_loop(%panels: memref<4x64x32xf32>) -> vector<1x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<1x32xf32>
  %r = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (vector<1x32xf32>) {
    %i = arith.remui %k, %c4 : index
    %rhs = vector.transfer_read %panels[%i, %k, %c0], %pad {in_bounds = [true, true]} : memref<4x64x32xf32>, vector<1x32xf32>
    %next = arith.addf %acc, %rhs : vector<1x32xf32>
    scf.yield %next : vector<1x32xf32>
  }
  return %r : vector<1x32xf32>
}

// -----

// A register tile's k loop in the loop over the panel's register tiles along
// m (a dynamic count T of 8-row tiles): tile i prefetches its share of the
// next panel's 64-row block, one row per step of the loop (of 2 rows read):
// row first + i * c + j * c / 64 at row offset j, with c = ceil(64 / T).
// CHECK-LABEL: func.func @panel_shared_by_row_tiles(
// CHECK-SAME: %[[P:[^:]*]]: memref<4x128x32xf32>, %[[PANEL:[^:]*]]: index, %[[K0:[^:]*]]: index, %[[ROWS:[^:]*]]: index
// CHECK: %[[T:.*]] = arith.ceildivsi %[[ROWS]], %[[C8:.*]] : index
// CHECK: %[[T1:.*]] = arith.maxsi %[[T]], %{{.*}} : index
// CHECK: %[[SHARE:.*]] = arith.ceildivsi %{{.*}}, %[[T1]] : index
// CHECK: scf.for %[[M:[a-z0-9_]+]] = %{{.*}} to %[[ROWS]] step %[[C8]]
// CHECK:   %[[I:.*]] = arith.divui %[[M]], %[[C8]] : index
// CHECK:   %[[START:.*]] = arith.muli %[[I]], %[[SHARE]] : index
// CHECK:   %[[NEXT:.*]] = arith.minsi
// CHECK:   scf.for %[[K:[a-z0-9_]+]] =
// CHECK:     %[[ROW:.*]] = arith.addi %[[K0]], %[[K]] : index
// CHECK:     %[[TIMES:.*]] = arith.muli %[[K]], %[[SHARE]] : index
// CHECK:     %[[WITHIN:.*]] = arith.divui %[[TIMES]], %{{.*}} : index
// CHECK:     %[[OFF:.*]] = arith.addi %[[START]], %[[WITHIN]] : index
// CHECK:     %[[AT:.*]] = arith.addi %[[K0]], %[[OFF]] : index
// CHECK:     %[[CLAMPED:.*]] = arith.minsi %[[AT]], %{{.*}} : index
// CHECK:     memref.prefetch %[[P]][%[[NEXT]], %[[CLAMPED]], %{{.*}}], read, locality<1>, data
// CHECK:     memref.prefetch %[[P]][%[[NEXT]], %[[CLAMPED]], %{{.*}}], read, locality<1>, data
// CHECK:     vector.transfer_read %[[P]][%[[PANEL]], %[[ROW]], %{{.*}}]
// CHECK-NOT: memref.prefetch
// CHECK:     vector.transfer_read %[[P]][%[[PANEL]], %{{.*}}, %{{.*}}]
// CHECK:     scf.yield
func.func @panel_shared_by_row_tiles(%panels: memref<4x128x32xf32>, %panel: index, %k0: index, %rows: index) -> vector<1x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<1x32xf32>
  %r = scf.for %m = %c0 to %rows step %c8 iter_args(%out = %zero) -> (vector<1x32xf32>) {
    %s = scf.for %k = %c0 to %c64 step %c2 iter_args(%acc = %out) -> (vector<1x32xf32>) {
      %row = arith.addi %k0, %k : index
      %rhs = vector.transfer_read %panels[%panel, %row, %c0], %pad {in_bounds = [true, true]} : memref<4x128x32xf32>, vector<1x32xf32>
      %row1 = arith.addi %row, %c1 : index
      %rhs1 = vector.transfer_read %panels[%panel, %row1, %c0], %pad {in_bounds = [true, true]} : memref<4x128x32xf32>, vector<1x32xf32>
      %sum = arith.addf %acc, %rhs : vector<1x32xf32>
      %next = arith.addf %sum, %rhs1 : vector<1x32xf32>
      scf.yield %next : vector<1x32xf32>
    }
    scf.yield %s : vector<1x32xf32>
  }
  return %r : vector<1x32xf32>
}

// -----

// A panel that changes with the loop around the k loop is not shared: each
// read prefetches its own row of the next panel.
// CHECK-LABEL: func.func @panel_per_outer_step(
// CHECK: scf.for %[[M:[a-z0-9_]+]] =
// CHECK-NOT: arith.ceildivsi
// CHECK:   scf.for %[[K:[a-z0-9_]+]] =
// CHECK:     memref.prefetch %{{.*}}[%{{.*}}, %[[K]], %{{.*}}]
func.func @panel_per_outer_step(%panels: memref<4x128x32xf32>) -> vector<1x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<1x32xf32>
  %r = scf.for %m = %c0 to %c4 step %c1 iter_args(%out = %zero) -> (vector<1x32xf32>) {
    %s = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %out) -> (vector<1x32xf32>) {
      %rhs = vector.transfer_read %panels[%m, %k, %c0], %pad {in_bounds = [true, true]} : memref<4x128x32xf32>, vector<1x32xf32>
      %next = arith.addf %acc, %rhs : vector<1x32xf32>
      scf.yield %next : vector<1x32xf32>
    }
    scf.yield %s : vector<1x32xf32>
  }
  return %r : vector<1x32xf32>
}

// -----

// A row that changes with the loop around the k loop (a loop over k blocks,
// not over register tiles): each read prefetches its own row of the next
// panel.
// CHECK-LABEL: func.func @rows_per_outer_step(
// CHECK: scf.for %[[KB:[a-z0-9_]+]] =
// CHECK-NOT: arith.ceildivsi
// CHECK:   scf.for %[[K:[a-z0-9_]+]] =
// CHECK:     %[[ROW:.*]] = arith.addi %[[KB]], %[[K]] : index
// CHECK:     memref.prefetch %{{.*}}[%{{.*}}, %[[ROW]], %{{.*}}]
func.func @rows_per_outer_step(%panels: memref<4x128x32xf32>, %panel: index) -> vector<1x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<1x32xf32>
  %r = scf.for %kb = %c0 to %c128 step %c64 iter_args(%out = %zero) -> (vector<1x32xf32>) {
    %s = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %out) -> (vector<1x32xf32>) {
      %row = arith.addi %kb, %k : index
      %rhs = vector.transfer_read %panels[%panel, %row, %c0], %pad {in_bounds = [true, true]} : memref<4x128x32xf32>, vector<1x32xf32>
      %next = arith.addf %acc, %rhs : vector<1x32xf32>
      scf.yield %next : vector<1x32xf32>
    }
    scf.yield %s : vector<1x32xf32>
  }
  return %r : vector<1x32xf32>
}

// -----

// B packed by the schedule per k block: the block copy reads 8 rows x 32
// columns of B per step into the block buffer, each panel is copied from
// there, and the register tiles read the panel. The copy would wait on B
// from memory at the start of every k block, so the 16 register tiles of
// each panel prefetch, before their k loops, their share (128 / 16 = 8
// rows) of the panel's columns in the next block: tile i rows 8 i to 8 i +
// 7, 128 rows on, clamped to B's last row and column, one prefetch per
// line.
// CHECK-LABEL: func.func @packed_block(
// CHECK-SAME:    %[[B:[a-z0-9]+]]: memref<3072x768xf32>
// CHECK:         scf.for %[[KB:.*]] = %c0 to %c3072 step %c128
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK-NOT:           memref.prefetch
// CHECK:           scf.for %[[P:.*]] = %c0 to %c128 step %c32
// CHECK-DAG:         %[[LAST:.*]] = arith.constant 3071 : index
// CHECK-DAG:         %[[LASTCOL:.*]] = arith.constant 767 : index
// CHECK:             scf.for %[[T:.*]] = %c0 to %c128 step %c8
// CHECK:               %[[START:.*]] = arith.muli
// CHECK:               %[[END:.*]] = arith.minsi
// CHECK:               scf.for %[[R:.*]] = %[[START]] to %[[END]] step %c1
// CHECK:                 %[[NEXT:.*]] = arith.addi %[[R]], %c128
// CHECK:                 %[[ROW:.*]] = affine.apply #{{.*}}()[%[[KB]], %[[NEXT]]]
// CHECK:                 %[[COL:.*]] = affine.apply #{{.*}}()[%{{.*}}, %[[P]]]
// CHECK:                 %[[CLAMPED:.*]] = arith.minsi %[[ROW]], %[[LAST]]
// CHECK:                 %[[CCOL:.*]] = arith.minsi %[[COL]], %[[LASTCOL]]
// CHECK:                 memref.prefetch %[[B]][%[[CLAMPED]], %[[CCOL]]], read, locality<1>, data
// CHECK:                 %[[COL16:.*]] = arith.addi %[[CCOL]], %c16
// CHECK:                 memref.prefetch %[[B]][%[[CLAMPED]], %[[COL16]]], read, locality<1>, data
// CHECK:               scf.for {{.*}} iter_args
// CHECK-NOT:             memref.prefetch
// CHECK:                 vector.transfer_read %[[VIEW:.*]][
#map = affine_map<()[s0, s1] -> (s0 + s1)>
func.func @packed_block(%a: memref<128x3072xf32>, %b: memref<3072x768xf32>, %c: memref<128x768xf32>, %n0: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c3072 = arith.constant 3072 : index
  %pad = arith.constant 0.0 : f32
  %block = memref.alloc() {alignment = 64 : i64} : memref<65536xi8>
  %panel = memref.alloc() {alignment = 64 : i64} : memref<16384xi8>
  scf.for %kb = %c0 to %c3072 step %c128 {
    %view = memref.view %block[%c0][] : memref<65536xi8> to memref<128x128xf32>
    scf.for %r = %c0 to %c128 step %c8 {
      %row = affine.apply #map()[%kb, %r]
      scf.for %col = %c0 to %c128 step %c32 {
        %n = affine.apply #map()[%n0, %col]
        %v = vector.transfer_read %b[%row, %n], %pad {in_bounds = [true, true]} : memref<3072x768xf32>, vector<8x32xf32>
        vector.transfer_write %v, %view[%r, %col] {in_bounds = [true, true]} : vector<8x32xf32>, memref<128x128xf32>
      }
    }
    scf.for %p = %c0 to %c128 step %c32 {
      %pview = memref.view %panel[%c0][] : memref<16384xi8> to memref<128x32xf32>
      scf.for %r = %c0 to %c128 step %c8 {
        %v = vector.transfer_read %view[%r, %p], %pad {in_bounds = [true, true]} : memref<128x128xf32>, vector<8x32xf32>
        vector.transfer_write %v, %pview[%r, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<128x32xf32>
      }
      %n = affine.apply #map()[%n0, %p]
      scf.for %t = %c0 to %c128 step %c8 {
        %init = vector.transfer_read %c[%t, %n], %pad {in_bounds = [true, true]} : memref<128x768xf32>, vector<8x32xf32>
        %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%x = %init) -> (vector<8x32xf32>) {
          %ka = affine.apply #map()[%kb, %k]
          %av = vector.transfer_read %a[%t, %ka], %pad {in_bounds = [true, true]} : memref<128x3072xf32>, vector<8x1xf32>
          %bv = vector.transfer_read %pview[%k, %c0], %pad {in_bounds = [true, true]} : memref<128x32xf32>, vector<1x32xf32>
          %ab = vector.broadcast %bv : vector<1x32xf32> to vector<8x32xf32>
          %x1 = vector.fma %ab, %ab, %x : vector<8x32xf32>
          scf.yield %x1 : vector<8x32xf32>
        }
        vector.transfer_write %acc, %c[%t, %n] {in_bounds = [true, true]} : vector<8x32xf32>, memref<128x768xf32>
      }
    }
  }
  memref.dealloc %panel : memref<16384xi8>
  memref.dealloc %block : memref<65536xi8>
  return
}

// -----

// A panel loop that does not cover the block copy's columns (here 96 of
// 128) is not taken for the copy's panels: no prefetch.
// CHECK-LABEL: func.func @packed_block_other_columns(
// CHECK-NOT:     memref.prefetch
// CHECK:         return
#map = affine_map<()[s0, s1] -> (s0 + s1)>
func.func @packed_block_other_columns(%a: memref<128x3072xf32>, %b: memref<3072x768xf32>, %c: memref<128x768xf32>, %n0: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c96 = arith.constant 96 : index
  %c3072 = arith.constant 3072 : index
  %pad = arith.constant 0.0 : f32
  %block = memref.alloc() {alignment = 64 : i64} : memref<65536xi8>
  %panel = memref.alloc() {alignment = 64 : i64} : memref<16384xi8>
  scf.for %kb = %c0 to %c3072 step %c128 {
    %view = memref.view %block[%c0][] : memref<65536xi8> to memref<128x128xf32>
    scf.for %r = %c0 to %c128 step %c8 {
      %row = affine.apply #map()[%kb, %r]
      scf.for %col = %c0 to %c128 step %c32 {
        %n = affine.apply #map()[%n0, %col]
        %v = vector.transfer_read %b[%row, %n], %pad {in_bounds = [true, true]} : memref<3072x768xf32>, vector<8x32xf32>
        vector.transfer_write %v, %view[%r, %col] {in_bounds = [true, true]} : vector<8x32xf32>, memref<128x128xf32>
      }
    }
    scf.for %p = %c0 to %c96 step %c32 {
      %pview = memref.view %panel[%c0][] : memref<16384xi8> to memref<128x32xf32>
      scf.for %r = %c0 to %c128 step %c8 {
        %v = vector.transfer_read %view[%r, %p], %pad {in_bounds = [true, true]} : memref<128x128xf32>, vector<8x32xf32>
        vector.transfer_write %v, %pview[%r, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<128x32xf32>
      }
      %n = affine.apply #map()[%n0, %p]
      scf.for %t = %c0 to %c128 step %c8 {
        %init = vector.transfer_read %c[%t, %n], %pad {in_bounds = [true, true]} : memref<128x768xf32>, vector<8x32xf32>
        %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%x = %init) -> (vector<8x32xf32>) {
          %ka = affine.apply #map()[%kb, %k]
          %av = vector.transfer_read %a[%t, %ka], %pad {in_bounds = [true, true]} : memref<128x3072xf32>, vector<8x1xf32>
          %bv = vector.transfer_read %pview[%k, %c0], %pad {in_bounds = [true, true]} : memref<128x32xf32>, vector<1x32xf32>
          %ab = vector.broadcast %bv : vector<1x32xf32> to vector<8x32xf32>
          %x1 = vector.fma %ab, %ab, %x : vector<8x32xf32>
          scf.yield %x1 : vector<8x32xf32>
        }
        vector.transfer_write %acc, %c[%t, %n] {in_bounds = [true, true]} : vector<8x32xf32>, memref<128x768xf32>
      }
    }
  }
  memref.dealloc %panel : memref<16384xi8>
  memref.dealloc %block : memref<65536xi8>
  return
}

// -----

// B indexed (n, k) (a linear's weight, 3072 x 768): the schedule's
// transposing copy reads 16 x 16 tiles of B's rows (a cache tile's 128
// columns of n) and writes them transposed into the k x n block, from which
// each panel is copied. B's rows are read 16 at a time for 8 lines each, too
// short a stream for the hardware prefetchers, so the 16 register tiles of
// each panel prefetch their share (32 / 16 = 2) of the panel's 32 rows of B
// in the next block: tile i rows 2 i and 2 i + 1 of the panel, 128 columns
// on (clamped to B's last column), 8 lines each.
// CHECK-LABEL: func.func @transposed_block(
// CHECK-SAME:    %[[B:[a-z0-9]+]]: memref<3072x768xf32>
// CHECK:         scf.for %[[KB:.*]] = %c0 to %c768 step %c128
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK-NOT:           memref.prefetch
// CHECK:           scf.for %[[P:.*]] = %c0 to %c128 step %c32
// CHECK-DAG:         %[[LASTROW:.*]] = arith.constant 3071 : index
// CHECK-DAG:         %[[LASTCOL:.*]] = arith.constant 767 : index
// CHECK:             scf.for %[[T:.*]] = %c0 to %c128 step %c8
// CHECK:               %[[START:.*]] = arith.muli
// CHECK:               %[[END:.*]] = arith.minsi
// CHECK:               scf.for %[[R:.*]] = %[[START]] to %[[END]] step %c1
// CHECK:                 %[[N:.*]] = arith.addi %[[P]], %[[R]]
// CHECK:                 %[[ROW:.*]] = affine.apply #{{.*}}()[%{{.*}}, %[[N]]]
// CHECK:                 %[[COL:.*]] = affine.apply #{{.*}}()[%[[KB]], %c128
// CHECK:                 %[[CROW:.*]] = arith.minsi %[[ROW]], %[[LASTROW]]
// CHECK:                 %[[CCOL:.*]] = arith.minsi %[[COL]], %[[LASTCOL]]
// CHECK:                 memref.prefetch %[[B]][%[[CROW]], %[[CCOL]]], read, locality<1>, data
// CHECK-COUNT-7:         memref.prefetch %[[B]][%[[CROW]], %{{.*}}], read, locality<1>, data
// CHECK-NOT:             memref.prefetch
// CHECK:               scf.for {{.*}} iter_args
// CHECK-NOT:             memref.prefetch
// CHECK:                 vector.transfer_read %[[VIEW:.*]][
#map = affine_map<()[s0, s1] -> (s0 + s1)>
func.func @transposed_block(%a: memref<128x768xf32>, %b: memref<3072x768xf32>, %c: memref<128x3072xf32>, %n0: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c768 = arith.constant 768 : index
  %pad = arith.constant 0.0 : f32
  %block = memref.alloc() {alignment = 64 : i64} : memref<128x128xf32>
  %panel = memref.alloc() {alignment = 64 : i64} : memref<16384xi8>
  scf.for %kb = %c0 to %c768 step %c128 {
    scf.for %col = %c0 to %c128 step %c16 {
      %n = affine.apply #map()[%n0, %col]
      scf.for %r = %c0 to %c128 step %c16 {
        %k = affine.apply #map()[%kb, %r]
        %v = vector.transfer_read %b[%n, %k], %pad {in_bounds = [true, true]} : memref<3072x768xf32>, vector<16x16xf32>
        %t = vector.transpose %v, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
        vector.transfer_write %t, %block[%r, %col] {in_bounds = [true, true]} : vector<16x16xf32>, memref<128x128xf32>
      }
    }
    scf.for %p = %c0 to %c128 step %c32 {
      %pview = memref.view %panel[%c0][] : memref<16384xi8> to memref<128x32xf32>
      scf.for %r = %c0 to %c128 step %c8 {
        %v = vector.transfer_read %block[%r, %p], %pad {in_bounds = [true, true]} : memref<128x128xf32>, vector<8x32xf32>
        vector.transfer_write %v, %pview[%r, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<128x32xf32>
      }
      %n = affine.apply #map()[%n0, %p]
      scf.for %t = %c0 to %c128 step %c8 {
        %init = vector.transfer_read %c[%t, %n], %pad {in_bounds = [true, true]} : memref<128x3072xf32>, vector<8x32xf32>
        %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%x = %init) -> (vector<8x32xf32>) {
          %ka = affine.apply #map()[%kb, %k]
          %av = vector.transfer_read %a[%t, %ka], %pad {in_bounds = [true, true]} : memref<128x768xf32>, vector<8x1xf32>
          %bv = vector.transfer_read %pview[%k, %c0], %pad {in_bounds = [true, true]} : memref<128x32xf32>, vector<1x32xf32>
          %ab = vector.broadcast %bv : vector<1x32xf32> to vector<8x32xf32>
          %x1 = vector.fma %ab, %ab, %x : vector<8x32xf32>
          scf.yield %x1 : vector<8x32xf32>
        }
        vector.transfer_write %acc, %c[%t, %n] {in_bounds = [true, true]} : vector<8x32xf32>, memref<128x3072xf32>
      }
    }
  }
  memref.dealloc %panel : memref<16384xi8>
  memref.dealloc %block : memref<128x128xf32>
  return
}

// -----

// The same weight transposed per k block straight into panels [n / 32, k,
// 32] (transformer-cpu-fuse-epilogues' transposeIntoPanels, the stores as
// vector.store), which the register tiles read in place: the loop over
// panels counts panels, so the share's rows of B are the panel's first
// column (p * 32) plus the share's row.
// CHECK-LABEL: func.func @transposed_panels(
// CHECK-SAME:    %[[B:[a-z0-9]+]]: memref<3072x768xf32>
// CHECK:         scf.for %[[KB:.*]] = %c0 to %c768 step %c128
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK-NOT:           memref.prefetch
// CHECK:           scf.for %[[P:.*]] = %c0 to %c4 step %c1
// CHECK:             scf.for %[[T:.*]] = %c0 to %c128 step %c8
// CHECK:               scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %c1
// CHECK:                 %[[FIRST:.*]] = arith.muli %[[P]], %c32
// CHECK:                 %[[N:.*]] = arith.addi %[[FIRST]], %[[R]]
// CHECK:                 %[[ROW:.*]] = affine.apply #{{.*}}()[%{{.*}}, %[[N]]]
// CHECK:                 %[[COL:.*]] = affine.apply #{{.*}}()[%[[KB]], %c128
// CHECK:                 %[[CROW:.*]] = arith.minsi %[[ROW]]
// CHECK:                 %[[CCOL:.*]] = arith.minsi %[[COL]]
// CHECK:                 memref.prefetch %[[B]][%[[CROW]], %[[CCOL]]], read, locality<1>, data
// CHECK-COUNT-7:         memref.prefetch %[[B]][%[[CROW]], %{{.*}}], read, locality<1>, data
// CHECK-NOT:             memref.prefetch
// CHECK:               scf.for {{.*}} iter_args
// CHECK-NOT:             memref.prefetch
// CHECK:                 vector.transfer_read %[[PANELS:.*]][%[[P]],
#map = affine_map<()[s0, s1] -> (s0 + s1)>
func.func @transposed_panels(%a: memref<128x768xf32>, %b: memref<3072x768xf32>, %c: memref<128x3072xf32>, %n0: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c768 = arith.constant 768 : index
  %pad = arith.constant 0.0 : f32
  %panels = memref.alloc() {alignment = 64 : i64} : memref<4x128x32xf32>
  scf.for %kb = %c0 to %c768 step %c128 {
    scf.for %col = %c0 to %c128 step %c16 {
      %panel = arith.divui %col, %c32 : index
      %column = arith.remui %col, %c32 : index
      %n = affine.apply #map()[%n0, %col]
      scf.for %r = %c0 to %c128 step %c16 {
        %k = affine.apply #map()[%kb, %r]
        %v = vector.transfer_read %b[%n, %k], %pad {in_bounds = [true, true]} : memref<3072x768xf32>, vector<16x16xf32>
        %row = vector.extract %v[0] : vector<16xf32> from vector<16x16xf32>
        vector.store %row, %panels[%panel, %r, %column] : memref<4x128x32xf32>, vector<16xf32>
      }
    }
    scf.for %p = %c0 to %c4 step %c1 {
      %first = arith.muli %p, %c32 : index
      %n = affine.apply #map()[%n0, %first]
      scf.for %t = %c0 to %c128 step %c8 {
        %init = vector.transfer_read %c[%t, %n], %pad {in_bounds = [true, true]} : memref<128x3072xf32>, vector<8x32xf32>
        %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%x = %init) -> (vector<8x32xf32>) {
          %ka = affine.apply #map()[%kb, %k]
          %av = vector.transfer_read %a[%t, %ka], %pad {in_bounds = [true, true]} : memref<128x768xf32>, vector<8x1xf32>
          %bv = vector.transfer_read %panels[%p, %k, %c0], %pad {in_bounds = [true, true]} : memref<4x128x32xf32>, vector<1x32xf32>
          %ab = vector.broadcast %bv : vector<1x32xf32> to vector<8x32xf32>
          %x1 = vector.fma %ab, %ab, %x : vector<8x32xf32>
          scf.yield %x1 : vector<8x32xf32>
        }
        vector.transfer_write %acc, %c[%t, %n] {in_bounds = [true, true]} : vector<8x32xf32>, memref<128x3072xf32>
      }
    }
  }
  memref.dealloc %panels : memref<4x128x32xf32>
  return
}

// -----

// Each panel copied straight from B (no block copy), 8 rows of the panel's
// 32 columns per step, in an scf.forall over cache tiles of 256 columns:
// the register tiles prefetch their share of the panel's rows in the next k
// block, and in the cache tile's last k block (kb + 128 >= 768) the same
// share of the first block of the next cache tile along n (its column 256
// on), the tile a thread takes next.
// CHECK-LABEL: func.func @panel_copy_in_forall(
// CHECK-SAME:    %[[B:[a-z0-9]+]]: memref<768x3072xf32>
// CHECK:         scf.forall (%[[N0:.*]]) = (0) to (3072) step (256)
// CHECK:           scf.for %[[KB:.*]] = %c0 to %c768 step %c128
// CHECK:             scf.for %[[P:.*]] = %c0 to %c256 step %c32
// CHECK:               scf.for
// CHECK-NOT:             memref.prefetch
// CHECK:               %[[KNEXT:.*]] = arith.addi %[[KB]], %c128
// CHECK:               %[[LASTBLOCK:.*]] = arith.cmpi sge, %[[KNEXT]], %c768
// CHECK:               scf.for %[[T:.*]] = %c0 to %c128 step %c8
// CHECK:                 scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %c1
// CHECK:                   %[[NEXT:.*]] = arith.addi %[[R]], %c128
// CHECK:                   %[[ROW:.*]] = affine.apply #{{.*}}()[%[[KB]], %[[NEXT]]]
// CHECK:                   %[[COL:.*]] = affine.apply #{{.*}}()[%[[N0]], %[[P]]]
// CHECK:                   %[[N1:.*]] = arith.addi %[[N0]], %c256
// CHECK:                   %[[WROW:.*]] = affine.apply #{{.*}}()[%c0, %[[R]]]
// CHECK:                   %[[WCOL:.*]] = affine.apply #{{.*}}()[%[[N1]], %[[P]]]
// CHECK:                   %[[SROW:.*]] = arith.select %[[LASTBLOCK]], %[[WROW]], %[[ROW]]
// CHECK:                   %[[SCOL:.*]] = arith.select %[[LASTBLOCK]], %[[WCOL]], %[[COL]]
// CHECK:                   %[[CROW:.*]] = arith.minsi %[[SROW]], %c767
// CHECK:                   %[[CCOL:.*]] = arith.minsi %[[SCOL]], %c3071
// CHECK:                   memref.prefetch %[[B]][%[[CROW]], %[[CCOL]]], read, locality<1>, data
// CHECK:                   memref.prefetch %[[B]][%[[CROW]], %{{.*}}], read, locality<1>, data
// CHECK-NOT:               memref.prefetch
// CHECK:                 scf.for {{.*}} iter_args
#map = affine_map<()[s0, s1] -> (s0 + s1)>
func.func @panel_copy_in_forall(%a: memref<128x768xf32>, %b: memref<768x3072xf32>, %c: memref<128x3072xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c768 = arith.constant 768 : index
  %pad = arith.constant 0.0 : f32
  scf.forall (%n0) = (0) to (3072) step (256) {
    %panel = memref.alloc() {alignment = 64 : i64} : memref<16384xi8>
    scf.for %kb = %c0 to %c768 step %c128 {
      scf.for %p = %c0 to %c256 step %c32 {
        %pview = memref.view %panel[%c0][] : memref<16384xi8> to memref<128x32xf32>
        %n = affine.apply #map()[%n0, %p]
        scf.for %r = %c0 to %c128 step %c8 {
          %k = affine.apply #map()[%kb, %r]
          %v = vector.transfer_read %b[%k, %n], %pad {in_bounds = [true, true]} : memref<768x3072xf32>, vector<8x32xf32>
          vector.transfer_write %v, %pview[%r, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<128x32xf32>
        }
        scf.for %t = %c0 to %c128 step %c8 {
          %init = vector.transfer_read %c[%t, %n], %pad {in_bounds = [true, true]} : memref<128x3072xf32>, vector<8x32xf32>
          %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%x = %init) -> (vector<8x32xf32>) {
            %ka = affine.apply #map()[%kb, %k]
            %av = vector.transfer_read %a[%t, %ka], %pad {in_bounds = [true, true]} : memref<128x768xf32>, vector<8x1xf32>
            %bv = vector.transfer_read %pview[%k, %c0], %pad {in_bounds = [true, true]} : memref<128x32xf32>, vector<1x32xf32>
            %ab = vector.broadcast %bv : vector<1x32xf32> to vector<8x32xf32>
            %x1 = vector.fma %ab, %ab, %x : vector<8x32xf32>
            scf.yield %x1 : vector<8x32xf32>
          }
          vector.transfer_write %acc, %c[%t, %n] {in_bounds = [true, true]} : vector<8x32xf32>, memref<128x3072xf32>
        }
      }
    }
    memref.dealloc %panel : memref<16384xi8>
  }
  return
}

// -----

// A weight in panels ([n / 32, k, 32]) read in place in loops over k blocks
// (outer) and the cache tile's 4 panels (inner), as
// transformer-cpu-panel-contractions makes them: after a k block's last
// panel comes the first panel of the next k block, so the last panel's
// tiles prefetch that one (panel n0 / 32, 64 rows on); in the last k block
// they prefetch the next panel (the next cache tile's first) at the first
// k block (the rows done subtracted). Elsewhere the next panel at the same
// rows.
// CHECK-LABEL: func.func @panels_in_k_blocks(
// CHECK-SAME:    %[[P:[^:]*]]: memref<16x256x32xf32>, %[[N0:[^:]*]]: index
// CHECK:         scf.for %[[KB:.*]] = %c0 to %c256 step %c64
// CHECK:           scf.for %[[Q:.*]] = %c0 to %c4 step %c1
// CHECK:             %[[PANEL:.*]] = affine.apply #{{.*}}(%[[N0]])[%[[Q]]]
// CHECK:             %[[FIRST:.*]] = affine.apply #{{.*}}(%[[N0]])[%c0]
// CHECK:             %[[QN:.*]] = arith.addi %[[Q]], %c1
// CHECK:             %[[LASTPANEL:.*]] = arith.cmpi sge, %[[QN]], %c4
// CHECK:             %[[KN:.*]] = arith.addi %[[KB]], %c64
// CHECK:             %[[LASTBLOCK:.*]] = arith.cmpi sge, %[[KN]], %c256
// CHECK:             %[[NOTLAST:.*]] = arith.xori %[[LASTBLOCK]], %true
// CHECK:             %[[TOFIRST:.*]] = arith.andi %[[LASTPANEL]], %[[NOTLAST]]
// CHECK:             %[[DONE:.*]] = arith.subi %c0, %[[KB]]
// CHECK:             %[[SHIFT:.*]] = arith.select %[[LASTBLOCK]], %[[DONE]], %c64
// CHECK:             %[[ROWSHIFT:.*]] = arith.select %[[LASTPANEL]], %[[SHIFT]], %c0
// CHECK:             scf.for %[[T:.*]] = %c0 to %c64 step %c8
// CHECK:               %[[PLUS:.*]] = arith.addi %[[PANEL]], %c1
// CHECK:               %[[NEXT:.*]] = arith.select %[[TOFIRST]], %[[FIRST]], %[[PLUS]]
// CHECK:               %[[CNEXT:.*]] = arith.minsi %[[NEXT]], %c15
// CHECK:               scf.for
// CHECK:                 %[[SHIFTED:.*]] = arith.addi %{{.*}}, %[[ROWSHIFT]]
// CHECK:                 %[[CROW:.*]] = arith.minsi %[[SHIFTED]], %c255
// CHECK:                 memref.prefetch %[[P]][%[[CNEXT]], %[[CROW]], %c0], read, locality<1>, data
#map = affine_map<()[s0, s1] -> (s0 + s1)>
#panel = affine_map<(d0)[s0] -> (d0 floordiv 32 + s0)>
func.func @panels_in_k_blocks(%panels: memref<16x256x32xf32>, %n0: index, %c: memref<64x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  scf.for %kb = %c0 to %c256 step %c64 {
    scf.for %q = %c0 to %c4 step %c1 {
      %panel = affine.apply #panel(%n0)[%q]
      scf.for %t = %c0 to %c64 step %c8 {
        %init = vector.transfer_read %c[%t, %c0], %pad {in_bounds = [true, true]} : memref<64x512xf32>, vector<8x32xf32>
        %acc = scf.for %k = %c0 to %c64 step %c1 iter_args(%x = %init) -> (vector<8x32xf32>) {
          %row = affine.apply #map()[%kb, %k]
          %bv = vector.transfer_read %panels[%panel, %row, %c0], %pad {in_bounds = [true, true]} : memref<16x256x32xf32>, vector<1x32xf32>
          %ab = vector.broadcast %bv : vector<1x32xf32> to vector<8x32xf32>
          %x1 = vector.fma %ab, %ab, %x : vector<8x32xf32>
          scf.yield %x1 : vector<8x32xf32>
        }
        vector.transfer_write %acc, %c[%t, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<64x512xf32>
      }
    }
  }
  return
}
