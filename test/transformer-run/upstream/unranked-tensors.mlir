// Upstream-style tensor programs that print through an unranked tensor
// (`tensor.cast` to `tensor<*xf32>`, then `call @printMemrefF32`): the cast
// bufferizes to an unranked memref, and what is printed (sizes, strides,
// values) is what mlir-runner prints for the same program, at -O0 and -O2.

// RUN: rm -rf %t && split-file %s %t
// RUN: %mlir-runner-parity %t/matmul.mlir -e main --entry-point-result=void --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so | FileCheck %s --check-prefix=MATMUL
// RUN: %mlir-runner-parity %t/reshapes.mlir -e main --entry-point-result=void --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so | FileCheck %s --check-prefix=RESHAPES
// RUN: %mlir-runner-parity %t/dynamic.mlir -e main --entry-point-result=void --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so | FileCheck %s --check-prefix=DYNAMIC

// A 3x2 product whose result -O2 computes in a padded buffer: printed with
// the strides of a dense 3x2 result.
// MATMUL:      Unranked Memref base@ = {{.*}} rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1] data =
// MATMUL-NEXT: {{\[}}[1,   2],
// MATMUL-NEXT:  [3,   4],
// MATMUL-NEXT:  [5,   6]]

// RESHAPES:      Unranked Memref base@ = {{.*}} rank = 3 offset = 0 sizes = [2, 1, 3] strides = [3, 3, 1] data =
// RESHAPES-NEXT: {{\[\[\[}}0,    1,    2]],
// RESHAPES-NEXT:  {{\[\[}}3,    4,    5]]]
// RESHAPES-NEXT: Unranked Memref base@ = {{.*}} rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
// RESHAPES-NEXT: {{\[}}[9,   9,   9,   9],
// RESHAPES-NEXT:  [9,   0,   1,   2],
// RESHAPES-NEXT:  [9,   3,   4,   5]]
// RESHAPES-NEXT: Unranked Memref base@ = {{.*}} rank = 1 offset = 0 sizes = [6] strides = [1] data =
// RESHAPES-NEXT: [0,  1,  2,  3,  4,  5]

// DYNAMIC:      Unranked Memref base@ = {{.*}} rank = 1 offset = 0 sizes = [5] strides = [1] data =
// DYNAMIC-NEXT: [0,  2,  4,  6,  8]
// DYNAMIC-NEXT: Unranked Memref base@ = {{.*}} rank = 0 offset = 0 sizes = [] strides = [] data =
// DYNAMIC-NEXT: [20]

//--- matmul.mlir
func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %a = arith.constant dense<[[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]> : tensor<3x2xf32>
  %b = arith.constant dense<[[1.0, 2.0], [2.0, 2.0]]> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<3x2xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<3x2xf32>) -> tensor<3x2xf32>
  %c = linalg.matmul ins(%a, %b : tensor<3x2xf32>, tensor<2x2xf32>)
                     outs(%acc : tensor<3x2xf32>) -> tensor<3x2xf32>
  %u = tensor.cast %c : tensor<3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

//--- reshapes.mlir
func.func private @printMemrefF32(tensor<*xf32>)

// A tensor cast to an unranked one is printed after its last other use, as
// one-shot bufferization (here as upstream) casts the buffer in place.
func.func @main() {
  %flat = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<6xf32>
  %e = tensor.expand_shape %flat [[0, 1, 2]] output_shape [2, 1, 3]
      : tensor<6xf32> into tensor<2x1x3xf32>
  %m = tensor.collapse_shape %e [[0, 1], [2]] : tensor<2x1x3xf32> into tensor<2x3xf32>
  %nine = arith.constant 9.0 : f32
  %p = tensor.pad %m low[1, 1] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %nine : f32
  } : tensor<2x3xf32> to tensor<3x4xf32>
  %s = tensor.extract_slice %p[1, 1] [2, 3] [1, 1] : tensor<3x4xf32> to tensor<2x3xf32>
  %init = tensor.empty() : tensor<2x3xf32>
  %copy = linalg.copy ins(%s : tensor<2x3xf32>) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  %back = tensor.collapse_shape %copy [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>

  %ue = tensor.cast %e : tensor<2x1x3xf32> to tensor<*xf32>
  call @printMemrefF32(%ue) : (tensor<*xf32>) -> ()
  %up = tensor.cast %p : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%up) : (tensor<*xf32>) -> ()
  %ub = tensor.cast %back : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%ub) : (tensor<*xf32>) -> ()
  return
}

//--- dynamic.mlir
func.func private @printMemrefF32(tensor<*xf32>)

#id = affine_map<(d0) -> (d0)>
func.func @double(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.addf %a, %a : f32
    linalg.yield %d : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @main() {
  %x = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0]> : tensor<5xf32>
  %dx = tensor.cast %x : tensor<5xf32> to tensor<?xf32>
  %r = call @double(%dx) : (tensor<?xf32>) -> tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%r : tensor<?xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  %u = tensor.cast %r : tensor<?xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  %us = tensor.cast %sum : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%us) : (tensor<*xf32>) -> ()
  return
}
