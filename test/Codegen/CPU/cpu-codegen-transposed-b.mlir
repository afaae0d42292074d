// B indexed (n, k) (a linear's weight, a matmul with transpose_b)
// transposed per k block into a local buffer inside the cache tile (the
// "transpose_tile" / "btranspose_tile" that transformer-cpu-fuse-epilogues
// made).
// RUN: transformer-opt %s --transformer-cpu-select-target=cpu=skylake-avx512 --transformer-cpu-codegen --split-input-file | FileCheck %s

// 2-D: the panels are copied straight from the transposed block; the only
// buffers are the block and the panel.
// CHECK-LABEL: func.func private @main_kernel(
// CHECK-SAME:    %[[W:[a-z0-9]+]]: memref<512x256xf32>
// CHECK:         scf.forall
// CHECK:           %[[BLOCK:.*]] = memref.alloc() {{.*}} : memref<128x256xf32>
// CHECK:           %[[PANEL:.*]] = memref.alloc() {{.*}} : memref<16384xi8>
// CHECK-NOT:       memref.alloc
// CHECK:           scf.for %[[KB:.*]] = %c0 to %c256 step %c128
// CHECK:             scf.for %[[N:.*]] = %c0 to %c256 step %c16
// CHECK:               scf.for %[[K:.*]] = %c0 to %c128 step %c16
// CHECK:                 vector.transfer_read %[[W]][{{.*}}]{{.*}} : memref<512x256xf32>, vector<16x16xf32>
// CHECK:                 vector.transfer_write %{{.*}}, %[[BLOCK]][%[[K]], %[[N]]] {{.*}} : vector<16x16xf32>, memref<128x256xf32>
// CHECK-NOT:         memref.view
// CHECK:             scf.for %[[P:.*]] = %c0 to %c256 step %c32
// CHECK:               %[[VIEW:.*]] = memref.view %[[PANEL]]
// CHECK:               scf.for %[[R:.*]] = %c0 to %c128 step %c8
// CHECK:                 %[[ROWS:.*]] = vector.transfer_read %[[BLOCK]][%[[R]], %[[P]]]{{.*}} : memref<128x256xf32>, vector<8x32xf32>
// CHECK:                 vector.transfer_write %[[ROWS]], %[[VIEW]][%[[R]], %c0]
// CHECK:           memref.dealloc %[[PANEL]]
// CHECK:           memref.dealloc %[[BLOCK]]
#map = affine_map<(d0, d1) -> (d1)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func private @main_kernel(%w: memref<512x256xf32>, %x: memref<64x256xf32>, %bias: memref<512xf32>, %y: memref<64x512xf32>) {
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c0 = arith.constant 0 : index
  scf.forall (%n) = (0) to (512) step (256) {
    %w_tile = memref.subview %w[%n, 0] [256, 256] [1, 1] : memref<512x256xf32> to memref<256x256xf32, strided<[256, 1], offset: ?>>
    %bias_tile = memref.subview %bias[%n] [256] [1] : memref<512xf32> to memref<256xf32, strided<[1], offset: ?>>
    %y_tile = memref.subview %y[0, %n] [64, 256] [1, 1] : memref<64x512xf32> to memref<64x256xf32, strided<[512, 1], offset: ?>>
    linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%bias_tile : memref<256xf32, strided<[1], offset: ?>>) outs(%y_tile : memref<64x256xf32, strided<[512, 1], offset: ?>>) attrs = {transformer.contraction = "epilogue"} {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    %block = memref.alloc() {alignment = 64 : i64} : memref<128x256xf32>
    scf.for %kb = %c0 to %c256 step %c128 {
      %x_block = memref.subview %x[0, %kb] [64, 128] [1, 1] : memref<64x256xf32> to memref<64x128xf32, strided<[256, 1], offset: ?>>
      %w_block = memref.subview %w_tile[0, %kb] [256, 128] [1, 1] : memref<256x256xf32, strided<[256, 1], offset: ?>> to memref<256x128xf32, strided<[256, 1], offset: ?>>
      linalg.transpose ins(%w_block : memref<256x128xf32, strided<[256, 1], offset: ?>>) outs(%block : memref<128x256xf32>) permutation = [1, 0] {transformer.contraction = "transpose_tile"}
      linalg.contract indexing_maps = [#map2, #map3, #map4] {transformer.contraction = "mnk_tile"} ins(%x_block, %block : memref<64x128xf32, strided<[256, 1], offset: ?>>, memref<128x256xf32>) outs(%y_tile : memref<64x256xf32, strided<[512, 1], offset: ?>>)
    }
    memref.dealloc %block : memref<128x256xf32>
  }
  return
}

// -----

// Batched: the schedule's promotion copies each k block of B whole into a
// buffer of its own before the panels; where B is the transposed block
// (already such a buffer, 1 x 128 x 256) transformer-cpu-codegen forwards
// that copy: the panels are copied straight from the transposed block, and
// the promotion's 128 KiB buffer is gone.
// CHECK-LABEL: func.func private @batched_kernel(
// CHECK-SAME:    %[[W:[a-z0-9]+]]: memref<4x512x256xf32>
// CHECK:         scf.forall
// CHECK:           %[[BLOCK:.*]] = memref.alloc() {{.*}} : memref<1x128x256xf32>
// CHECK:           %[[PANEL:.*]] = memref.alloc() {{.*}} : memref<16384xi8>
// CHECK-NOT:       memref.alloc
// CHECK:           scf.for %[[KB:.*]] = %c0 to %c256 step %c128
// CHECK:             vector.transfer_read %[[W]]
// CHECK:             vector.transfer_write %{{.*}}, %[[BLOCK]]
// CHECK-NOT:         memref.view
// CHECK:             scf.for %[[P:.*]] = %c0 to %c256 step %c32
// CHECK:               %[[VIEW:.*]] = memref.view %[[PANEL]]
// CHECK:               scf.for %[[R:.*]] = %c0 to %c128 step %c8
// CHECK:                 %[[ROWS:.*]] = vector.transfer_read %[[BLOCK]][%c0, %[[R]], %[[P]]]{{.*}} : memref<1x128x256xf32>, vector<1x8x32xf32>
// CHECK:                 vector.transfer_write %[[ROWS]], %[[VIEW]]
// CHECK:           memref.dealloc %[[PANEL]]
// CHECK:           memref.dealloc %[[BLOCK]]
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func private @batched_kernel(%w: memref<4x512x256xf32>, %x: memref<4x128x256xf32>, %y: memref<4x128x512xf32>) {
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  scf.forall (%b, %n) = (0, 0) to (4, 512) step (1, 256) {
    %x_tile = memref.subview %x[%b, 0, 0] [1, 128, 256] [1, 1, 1] : memref<4x128x256xf32> to memref<1x128x256xf32, strided<[32768, 256, 1], offset: ?>>
    %w_tile = memref.subview %w[%b, %n, 0] [1, 256, 256] [1, 1, 1] : memref<4x512x256xf32> to memref<1x256x256xf32, strided<[131072, 256, 1], offset: ?>>
    %y_tile = memref.subview %y[%b, 0, %n] [1, 128, 256] [1, 1, 1] : memref<4x128x512xf32> to memref<1x128x256xf32, strided<[65536, 512, 1], offset: ?>>
    linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%y_tile : memref<1x128x256xf32, strided<[65536, 512, 1], offset: ?>>) attrs = {transformer.contraction = "bepilogue"} {
    ^bb0(%out: f32):
      linalg.yield %zero : f32
    }
    %block = memref.alloc() {alignment = 64 : i64} : memref<1x128x256xf32>
    scf.for %kb = %c0 to %c256 step %c128 {
      %x_block = memref.subview %x_tile[0, 0, %kb] [1, 128, 128] [1, 1, 1] : memref<1x128x256xf32, strided<[32768, 256, 1], offset: ?>> to memref<1x128x128xf32, strided<[32768, 256, 1], offset: ?>>
      %w_block = memref.subview %w_tile[0, 0, %kb] [1, 256, 128] [1, 1, 1] : memref<1x256x256xf32, strided<[131072, 256, 1], offset: ?>> to memref<1x256x128xf32, strided<[131072, 256, 1], offset: ?>>
      linalg.transpose ins(%w_block : memref<1x256x128xf32, strided<[131072, 256, 1], offset: ?>>) outs(%block : memref<1x128x256xf32>) permutation = [0, 2, 1] {transformer.contraction = "btranspose_tile"}
      linalg.contract indexing_maps = [#map1, #map2, #map3] {transformer.contraction = "bmnk_tile"} ins(%x_block, %block : memref<1x128x128xf32, strided<[32768, 256, 1], offset: ?>>, memref<1x128x256xf32>) outs(%y_tile : memref<1x128x256xf32, strided<[65536, 512, 1], offset: ?>>)
    }
    memref.dealloc %block : memref<1x128x256xf32>
  }
  return
}
