// Upstream-style programs that allocate and free their own memrefs: the
// runner's buffer deallocation leaves a function that frees memory itself
// as written (the ownership-based pass would reject its memref.dealloc),
// and still frees what bufferization allocated elsewhere. A buffer
// returned by a function that frees nothing is the caller's to free.
// Each prints what mlir-runner prints, at -O0 and -O2.

// RUN: rm -rf %t && split-file %s %t
// RUN: %mlir-runner-parity %t/conv-calls.mlir --pipeline="--test-lower-to-llvm" -e main --entry-point-result=void --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so | FileCheck %s --check-prefix=CONV
// RUN: %mlir-runner-parity %t/views.mlir --pipeline="--test-lower-to-llvm" -e main --entry-point-result=void --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so | FileCheck %s --check-prefix=VIEWS
// RUN: %mlir-runner-parity %t/mixed.mlir -e main --entry-point-result=void --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so | FileCheck %s --check-prefix=MIXED

// 1-D convolution of [1 2 3 4 5 6] with the filter [1 1 1]: sums of three.
// CONV:      Unranked Memref base@ = {{.*}} rank = 1 offset = 0 sizes = [4] strides = [1] data =
// CONV-NEXT: [6,  9,  12,  15]

// VIEWS:      Unranked Memref base@ = {{.*}} rank = 2 offset = 5 sizes = [2, 2] strides = [4, 1] data =
// VIEWS-NEXT: {{\[}}[11,   12],
// VIEWS-NEXT:  [21,   22]]
// VIEWS-NEXT: ( 0, 1, -1, -1 )
// VIEWS-NEXT: ( 3, 0, 2, 1 )
// VIEWS-NEXT: ( 0, 0, 0, 1, 2, 0, 0, 0 )
// VIEWS-NEXT: ( 0, 0, 0, 0 )

// MIXED:      Unranked Memref base@ = {{.*}} rank = 1 offset = 0 sizes = [3] strides = [1] data =
// MIXED-NEXT: [2,  4,  6]

//--- conv-calls.mlir
func.func private @printMemrefF32(memref<*xf32>)

// Returns a buffer it allocated: the caller frees it.
func.func @alloc_filled(%n: index, %value: f32) -> memref<?xf32> {
  %buf = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%value : f32) outs(%buf : memref<?xf32>)
  return %buf : memref<?xf32>
}

func.func @conv_1d(%in: memref<?xf32>, %filter: memref<?xf32>, %out: memref<?xf32>) {
  linalg.conv_1d ins(%in, %filter : memref<?xf32>, memref<?xf32>)
                 outs(%out : memref<?xf32>)
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %in = memref.alloc(%c6) : memref<?xf32>
  scf.for %i = %c0 to %c6 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %v = arith.addf %f, %one : f32
    memref.store %v, %in[%i] : memref<?xf32>
  }
  %filter = call @alloc_filled(%c3, %one) : (index, f32) -> memref<?xf32>
  %out = call @alloc_filled(%c4, %zero) : (index, f32) -> memref<?xf32>
  call @conv_1d(%in, %filter, %out) : (memref<?xf32>, memref<?xf32>, memref<?xf32>) -> ()
  %u = memref.cast %out : memref<?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %in : memref<?xf32>
  memref.dealloc %filter : memref<?xf32>
  memref.dealloc %out : memref<?xf32>
  return
}

//--- views.mlir
func.func private @printMemrefF32(memref<*xf32>)

func.func @fill(%m: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %rows = memref.dim %m, %c0 : memref<?x?xf32>
  %cols = memref.dim %m, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %t = arith.muli %i, %c10 : index
      %s = arith.addi %t, %j : index
      %si = arith.index_cast %s : index to i32
      %f = arith.sitofp %si : i32 to f32
      memref.store %f, %m[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %m = memref.alloc(%c3, %c4) : memref<?x?xf32>
  call @fill(%m) : (memref<?x?xf32>) -> ()
  %sv = memref.subview %m[1, 1] [2, 2] [1, 1]
      : memref<?x?xf32> to memref<2x2xf32, strided<[?, 1], offset: ?>>
  %u = memref.cast %sv : memref<2x2xf32, strided<[?, 1], offset: ?>> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()

  %pass = arith.constant dense<-1.0> : vector<4xf32>
  %two = vector.constant_mask [2] : vector<4xi1>
  %ml = vector.maskedload %m[%c0, %c0], %two, %pass
      : memref<?x?xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
  vector.print %ml : vector<4xf32>
  %idx = arith.constant dense<[3, 0, 2, 1]> : vector<4xi32>
  %all = vector.constant_mask [4] : vector<4xi1>
  %g = vector.gather %m[%c0, %c0] [%idx], %all, %pass
      : memref<?x?xf32>, vector<4xi32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
  vector.print %g : vector<4xf32>

  // compressstore packs the selected lanes; expandload spreads them back.
  %flat = memref.alloc() : memref<8xf32>
  %zeros = arith.constant dense<0.0> : vector<8xf32>
  vector.transfer_write %zeros, %flat[%c0] : vector<8xf32>, memref<8xf32>
  %sel = arith.constant dense<[false, true, true, false]> : vector<4xi1>
  %c3i = arith.constant 3 : index
  %row0 = vector.load %m[%c0, %c0] : memref<?x?xf32>, vector<4xf32>
  vector.compressstore %flat[%c3i], %sel, %row0 : memref<8xf32>, vector<4xi1>, vector<4xf32>
  %after = vector.load %flat[%c0] : memref<8xf32>, vector<8xf32>
  vector.print %after : vector<8xf32>
  %none = arith.constant dense<false> : vector<4xi1>
  %zero4 = arith.constant dense<0.0> : vector<4xf32>
  %e = vector.expandload %flat[%c0], %none, %zero4 : memref<8xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
  vector.print %e : vector<4xf32>
  memref.dealloc %flat : memref<8xf32>
  memref.dealloc %m : memref<?x?xf32>
  return
}

//--- mixed.mlir
func.func private @printMemrefF32(memref<*xf32>)

// A tensor function (its buffers are the runner's to free) called from a
// function that manages its own memrefs.
#id = affine_map<(d0) -> (d0)>
func.func @twice(%x: tensor<3xf32>) -> tensor<3xf32> {
  %init = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<3xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.addf %a, %a : f32
    linalg.yield %d : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

func.func @main() {
  %buf = memref.alloc() : memref<3xf32>
  %c = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %r = call @twice(%c) : (tensor<3xf32>) -> tensor<3xf32>
  bufferization.materialize_in_destination %r in restrict writable %buf
      : (tensor<3xf32>, memref<3xf32>) -> ()
  %u = memref.cast %buf : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %buf : memref<3xf32>
  return
}
