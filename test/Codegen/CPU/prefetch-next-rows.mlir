// Software prefetches of the next group of rows in the few-rows kernels.
// RUN: transformer-opt %s --transformer-cpu-prefetch-next-rows --split-input-file | FileCheck %s

// The dot kernel's loop over the Q8_0 blocks of a group of 2 weight rows:
// each row's block (its scale and values read at constant offsets) is
// prefetched once, two groups (4 rows) further on, clamped to the last row.
// A's row (one row, read by every group) is not.
// CHECK-LABEL: func.func @quantized_rows
// CHECK-SAME:    (%[[X:[a-z0-9]+]]: memref<1x64xf32>, %[[W:[a-z0-9]+]]: memref<96x2x34xi8>, %[[R0:[a-z0-9]+]]: index, %[[R1:[a-z0-9]+]]: index)
// CHECK:         %[[LAST:.*]] = arith.constant 95 : index
// CHECK:         %[[AHEAD:.*]] = arith.constant 4 : index
// CHECK:         %[[A0:.*]] = arith.addi %[[R0]], %[[AHEAD]] : index
// CHECK:         %[[N0:.*]] = arith.minsi %[[A0]], %[[LAST]] : index
// CHECK:         %[[A1:.*]] = arith.addi %[[R1]], %[[AHEAD]] : index
// CHECK:         %[[N1:.*]] = arith.minsi %[[A1]], %[[LAST]] : index
// CHECK:         scf.for %[[B:[a-z0-9]+]] =
// CHECK-NOT:       memref.prefetch %[[X]]
// CHECK:           memref.prefetch %[[W]][%[[N0]], %[[B]], %c2], read, locality<1>, data
// CHECK-NEXT:      vector.load %[[W]][%[[R0]], %[[B]], %c2]
// CHECK-NOT:       memref.prefetch
// CHECK:           memref.prefetch %[[W]][%[[N1]], %[[B]], %c2], read, locality<1>, data
// CHECK-NEXT:      vector.load %[[W]][%[[R1]], %[[B]], %c2]
// CHECK-NOT:       memref.prefetch
// CHECK:           scf.yield
func.func @quantized_rows(%x: memref<1x64xf32>, %w: memref<96x2x34xi8>, %r0: index, %r1: index) -> (vector<16xf32>, vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c18 = arith.constant 18 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %r:2 = scf.for %b = %c0 to %c2 step %c1 iter_args(%acc0 = %zero, %acc1 = %zero) -> (vector<16xf32>, vector<16xf32>) {
    %k = arith.muli %b, %c32 : index
    %a = vector.load %x[%c0, %k] : memref<1x64xf32>, vector<16xf32>
    %q0 = vector.load %w[%r0, %b, %c2] : memref<96x2x34xi8>, vector<16xi8>
    %p0 = vector.load %w[%r0, %b, %c18] : memref<96x2x34xi8>, vector<16xi8>
    %s0 = vector.load %w[%r0, %b, %c0] : memref<96x2x34xi8>, vector<2xi8>
    %f0 = arith.sitofp %q0 : vector<16xi8> to vector<16xf32>
    %n0 = vector.fma %a, %f0, %acc0 : vector<16xf32>
    %q1 = vector.load %w[%r1, %b, %c2] : memref<96x2x34xi8>, vector<16xi8>
    %s1 = vector.load %w[%r1, %b, %c0] : memref<96x2x34xi8>, vector<2xi8>
    %f1 = arith.sitofp %q1 : vector<16xi8> to vector<16xf32>
    %n1 = vector.fma %a, %f1, %acc1 : vector<16xf32>
    scf.yield %n0, %n1 : vector<16xf32>, vector<16xf32>
  }
  return %r#0, %r#1 : vector<16xf32>, vector<16xf32>
}

// -----

// bf16 rows read two vectors per step: each read is a place of its own.
// CHECK-LABEL: func.func @bf16_rows
// CHECK:         scf.for %[[K:[a-z0-9]+]] =
// CHECK:           %[[K16:.*]] = arith.addi %[[K]], %c16
// CHECK:           memref.prefetch %{{.*}}[%{{.*}}, %[[K]]], read, locality<1>, data : memref<512x256xbf16>
// CHECK:           vector.load
// CHECK:           memref.prefetch %{{.*}}[%{{.*}}, %[[K16]]], read, locality<1>, data : memref<512x256xbf16>
// CHECK:           vector.load
// CHECK:           memref.prefetch
// CHECK:           vector.load
// CHECK:           memref.prefetch
// CHECK:           vector.load
// CHECK:           scf.yield
func.func @bf16_rows(%w: memref<512x256xbf16>, %r0: index, %r1: index) -> vector<16xbf16> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant dense<0.0> : vector<16xbf16>
  %r = scf.for %k = %c0 to %c256 step %c32 iter_args(%acc = %zero) -> (vector<16xbf16>) {
    %k16 = arith.addi %k, %c16 : index
    %a = vector.load %w[%r0, %k] : memref<512x256xbf16>, vector<16xbf16>
    %b = vector.load %w[%r0, %k16] : memref<512x256xbf16>, vector<16xbf16>
    %c = vector.load %w[%r1, %k] : memref<512x256xbf16>, vector<16xbf16>
    %d = vector.load %w[%r1, %k16] : memref<512x256xbf16>, vector<16xbf16>
    %s0 = arith.addf %a, %b : vector<16xbf16>
    %s1 = arith.addf %c, %d : vector<16xbf16>
    %s2 = arith.addf %s0, %s1 : vector<16xbf16>
    %n = arith.addf %acc, %s2 : vector<16xbf16>
    scf.yield %n : vector<16xbf16>
  }
  return %r : vector<16xbf16>
}

// -----

// Left alone: f32 rows (the hardware prefetchers follow them), one row
// at a time, f32 rows read one per step of the loop, a loop that steps
// over more than one row at a time, and a buffer of the kernel's own (a
// packed panel, in cache).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     memref.prefetch
func.func @left_alone(%f: memref<512x256xf32>, %h: memref<512x256xf16>, %r0: index, %r1: index) -> (vector<16xf32>, vector<16xf16>, vector<16xf32>, vector<16xf16>, vector<16xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %zf = arith.constant dense<0.0> : vector<16xf32>
  %zh = arith.constant dense<0.0> : vector<16xf16>
  %a = scf.for %k = %c0 to %c256 step %c16 iter_args(%acc = %zf) -> (vector<16xf32>) {
    %x = vector.load %f[%r0, %k] : memref<512x256xf32>, vector<16xf32>
    %y = vector.load %f[%r1, %k] : memref<512x256xf32>, vector<16xf32>
    %s = arith.addf %x, %y : vector<16xf32>
    %n = arith.addf %acc, %s : vector<16xf32>
    scf.yield %n : vector<16xf32>
  }
  %b = scf.for %k = %c0 to %c256 step %c16 iter_args(%acc = %zh) -> (vector<16xf16>) {
    %x = vector.load %h[%r0, %k] : memref<512x256xf16>, vector<16xf16>
    %n = arith.addf %acc, %x : vector<16xf16>
    scf.yield %n : vector<16xf16>
  }
  %c = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %zf) -> (vector<16xf32>) {
    %x = vector.load %f[%k, %r0] : memref<512x256xf32>, vector<16xf32>
    %n = arith.addf %acc, %x : vector<16xf32>
    scf.yield %n : vector<16xf32>
  }
  %d = scf.for %k = %c0 to %c256 step %c16 iter_args(%acc = %zh) -> (vector<16xf16>) {
    %x = vector.load %h[%k, %r0] : memref<512x256xf16>, vector<16xf16>
    %n = arith.addf %acc, %x : vector<16xf16>
    scf.yield %n : vector<16xf16>
  }
  %panel = memref.alloc() : memref<256x32xf16>
  %e = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %zh) -> (vector<16xf16>) {
    %x = vector.load %panel[%k, %c16] : memref<256x32xf16>, vector<16xf16>
    %n = arith.addf %acc, %x : vector<16xf16>
    scf.yield %n : vector<16xf16>
  }
  memref.dealloc %panel : memref<256x32xf16>
  return %a, %b, %c, %d, %e : vector<16xf32>, vector<16xf16>, vector<16xf32>, vector<16xf16>, vector<16xf16>
}

// -----

// Elements that are neither integers nor floats are left alone (and do not
// crash the pass).
// CHECK-LABEL: func.func @index_rows
// CHECK-NOT:     memref.prefetch
func.func @index_rows(%m: memref<64x64xindex>, %r0: index, %r1: index) -> (vector<4xindex>, vector<4xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant dense<0> : vector<4xindex>
  %a = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %z) -> (vector<4xindex>) {
    %x = vector.load %m[%k, %c0] : memref<64x64xindex>, vector<4xindex>
    %n = arith.addi %acc, %x : vector<4xindex>
    scf.yield %n : vector<4xindex>
  }
  %b = scf.for %k = %c0 to %c64 step %c4 iter_args(%acc = %z) -> (vector<4xindex>) {
    %x = vector.load %m[%r0, %k] : memref<64x64xindex>, vector<4xindex>
    %y = vector.load %m[%r1, %k] : memref<64x64xindex>, vector<4xindex>
    %s = arith.addi %x, %y : vector<4xindex>
    %n = arith.addi %acc, %s : vector<4xindex>
    scf.yield %n : vector<4xindex>
  }
  return %a, %b : vector<4xindex>, vector<4xindex>
}

// -----

// Constant columns count their lines from column 0: loads at columns 0, 16
// and 96 of a bf16 row read lines 0 and 3 (64-byte lines of 32 values).
// CHECK-LABEL: func.func @constant_columns
// CHECK:         scf.for
// CHECK:           memref.prefetch %{{.*}}[%{{.*}}, %c0{{.*}}]
// CHECK:           memref.prefetch %{{.*}}[%{{.*}}, %c96{{.*}}]
// CHECK-NOT:       memref.prefetch
// CHECK:           scf.yield
func.func @constant_columns(%w: memref<128x128xbf16>) -> vector<16xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c96 = arith.constant 96 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant dense<0.0> : vector<16xbf16>
  %r = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (vector<16xbf16>) {
    %a = vector.load %w[%k, %c0] : memref<128x128xbf16>, vector<16xbf16>
    %b = vector.load %w[%k, %c16] : memref<128x128xbf16>, vector<16xbf16>
    %c = vector.load %w[%k, %c96] : memref<128x128xbf16>, vector<16xbf16>
    %s0 = arith.addf %a, %b : vector<16xbf16>
    %s1 = arith.addf %s0, %c : vector<16xbf16>
    %n = arith.addf %acc, %s1 : vector<16xbf16>
    scf.yield %n : vector<16xbf16>
  }
  return %r : vector<16xbf16>
}

// -----

// The row form's loop over the rows of a bf16 B indexed (k, n), one row per
// step, 64 columns of it (4 vectors at a column plus constants: 128 bytes,
// two cache lines): each line prefetched 16 rows further on, clamped to the
// last row, before the first read.
// CHECK-LABEL: func.func @row_form_rows
// CHECK-SAME:    (%[[W:[a-z0-9]+]]: memref<768x3072xbf16>, %[[COL:[a-z0-9]+]]: index)
// CHECK-DAG:     %[[LAST:.*]] = arith.constant 767 : index
// CHECK:         %[[C32:.*]] = arith.addi %[[COL]], %c32
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:           %[[NEXT:.*]] = arith.addi %[[K]], %c16{{.*}} : index
// CHECK:           %[[ROW:.*]] = arith.minsi %[[NEXT]], %[[LAST]] : index
// CHECK:           memref.prefetch %[[W]][%[[ROW]], %[[COL]]], read, locality<1>, data
// CHECK:           memref.prefetch %[[W]][%[[ROW]], %[[C32]]], read, locality<1>, data
// CHECK-NOT:       memref.prefetch
// CHECK:           vector.load %[[W]][%[[K]], %[[COL]]]
// CHECK-COUNT-3:   vector.load
// CHECK:           scf.yield
func.func @row_form_rows(%w: memref<768x3072xbf16>, %col: index) -> vector<16xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c768 = arith.constant 768 : index
  %zero = arith.constant dense<0.0> : vector<16xbf16>
  %n16 = arith.addi %col, %c16 : index
  %n32 = arith.addi %col, %c32 : index
  %n48 = arith.addi %col, %c48 : index
  %r = scf.for %k = %c0 to %c768 step %c1 iter_args(%acc = %zero) -> (vector<16xbf16>) {
    %a = vector.load %w[%k, %col] : memref<768x3072xbf16>, vector<16xbf16>
    %b = vector.load %w[%k, %n16] : memref<768x3072xbf16>, vector<16xbf16>
    %c = vector.load %w[%k, %n32] : memref<768x3072xbf16>, vector<16xbf16>
    %d = vector.load %w[%k, %n48] : memref<768x3072xbf16>, vector<16xbf16>
    %s0 = arith.addf %a, %b : vector<16xbf16>
    %s1 = arith.addf %c, %d : vector<16xbf16>
    %s2 = arith.addf %s0, %s1 : vector<16xbf16>
    %n = arith.addf %acc, %s2 : vector<16xbf16>
    scf.yield %n : vector<16xbf16>
  }
  return %r : vector<16xbf16>
}

// -----

// The row form over a bf16 B in panels ([n / 32, k, 32]): each panel's row
// k (one line, read as two vectors) is prefetched 16 rows further on in the
// same panel, clamped to the panel's last row; not the panels further on,
// which are the next tiles' (no next-group prefetch). f32 panels are left
// alone.
// CHECK-LABEL: func.func @row_form_panels
// CHECK-SAME:    (%[[W:[a-z0-9]+]]: memref<96x768x32xbf16>, %[[F:[a-z0-9]+]]: memref<96x768x32xf32>, %[[P0:[a-z0-9]+]]: index, %[[P1:[a-z0-9]+]]: index)
// CHECK-DAG:     %[[LAST:.*]] = arith.constant 767 : index
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:           %[[NEXT:.*]] = arith.addi %[[K]], %c16{{.*}} : index
// CHECK:           %[[ROW:.*]] = arith.minsi %[[NEXT]], %[[LAST]] : index
// CHECK:           memref.prefetch %[[W]][%[[P0]], %[[ROW]], %c0{{.*}}], read, locality<1>, data
// CHECK-NOT:       memref.prefetch
// CHECK:           vector.load %[[W]][%[[P0]], %[[K]], %c0{{.*}}]
// CHECK:           vector.load %[[W]][%[[P0]], %[[K]], %c16{{.*}}]
// CHECK:           %[[NEXT1:.*]] = arith.addi %[[K]], %c16{{.*}} : index
// CHECK:           %[[ROW1:.*]] = arith.minsi %[[NEXT1]], %c767{{.*}} : index
// CHECK:           memref.prefetch %[[W]][%[[P1]], %[[ROW1]], %c0{{.*}}], read, locality<1>, data
// CHECK-NOT:       memref.prefetch
// CHECK:           vector.load %[[W]][%[[P1]], %[[K]], %c0{{.*}}]
// CHECK:           vector.load %[[F]]
// CHECK:           scf.yield
func.func @row_form_panels(%w: memref<96x768x32xbf16>, %f: memref<96x768x32xf32>, %p0: index, %p1: index) -> vector<16xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c768 = arith.constant 768 : index
  %zero = arith.constant dense<0.0> : vector<16xbf16>
  %r = scf.for %k = %c0 to %c768 step %c1 iter_args(%acc = %zero) -> (vector<16xbf16>) {
    %a = vector.load %w[%p0, %k, %c0] : memref<96x768x32xbf16>, vector<16xbf16>
    %b = vector.load %w[%p0, %k, %c16] : memref<96x768x32xbf16>, vector<16xbf16>
    %c = vector.load %w[%p1, %k, %c0] : memref<96x768x32xbf16>, vector<16xbf16>
    %d = vector.load %f[%p1, %k, %c0] : memref<96x768x32xf32>, vector<16xf32>
    %dt = arith.truncf %d : vector<16xf32> to vector<16xbf16>
    %s0 = arith.addf %a, %b : vector<16xbf16>
    %s1 = arith.addf %s0, %c : vector<16xbf16>
    %s2 = arith.addf %s1, %dt : vector<16xbf16>
    %n = arith.addf %acc, %s2 : vector<16xbf16>
    scf.yield %n : vector<16xbf16>
  }
  return %r : vector<16xbf16>
}
