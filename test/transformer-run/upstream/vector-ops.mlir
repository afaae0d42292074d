// Upstream-style programs written with the vector dialect: masks, strided
// slices, shape casts, shuffles, outer products and n-D vector.print lower
// at -O0 as at -O2 (the same conversions, without the optimisations), and
// print what mlir-runner prints.

// RUN: %mlir-runner-parity %s --pipeline="--lower-vector-multi-reduction --test-lower-to-llvm" -e main --entry-point-result=void --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so | FileCheck %s --match-full-lines

// CHECK:      ( 1, 1, 1, 0, 0, 0, 0, 0 )
// CHECK-NEXT: ( 1, 1, 1, 1, 1, 0, 0, 0 )
// CHECK-NEXT: ( ( 1, 1, 0 ), ( 0, 0, 0 ) )
// CHECK-NEXT: ( 3, 4, 5, 6 )
// CHECK-NEXT: ( 1, 2, 3, 4, 5, 6, 10, 20 )
// CHECK-NEXT: ( ( 1, 2, 3, 4 ), ( 5, 6, 7, 8 ) )
// CHECK-NEXT: ( ( 10, 20, 30 ), ( 20, 40, 60 ) )
// CHECK-NEXT: ( 30, 10, 20 )
// CHECK-NEXT: ( 3, 7, 11, 15 )
// CHECK-NEXT: 36
// CHECK-NEXT: ( ( 1, 5 ), ( 2, 6 ), ( 3, 7 ), ( 4, 8 ) )
// CHECK-NEXT: ( 1, -2, 3, -4 )
// CHECK-NEXT: done

func.func @main() {
  %m = vector.constant_mask [3] : vector<8xi1>
  vector.print %m : vector<8xi1>
  %c5 = arith.constant 5 : index
  %cm = vector.create_mask %c5 : vector<8xi1>
  vector.print %cm : vector<8xi1>
  %m2 = vector.constant_mask [1, 2] : vector<2x3xi1>
  vector.print %m2 : vector<2x3xi1>

  %v = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : vector<8xf32>
  %s = vector.extract_strided_slice %v {offsets = [2], sizes = [4], strides = [1]}
      : vector<8xf32> to vector<4xf32>
  vector.print %s : vector<4xf32>
  %a = arith.constant dense<[10.0, 20.0]> : vector<2xf32>
  %ins = vector.insert_strided_slice %a, %v {offsets = [6], strides = [1]}
      : vector<2xf32> into vector<8xf32>
  vector.print %ins : vector<8xf32>
  %sc = vector.shape_cast %v : vector<8xf32> to vector<2x4xf32>
  vector.print %sc : vector<2x4xf32>

  %x = arith.constant dense<[1.0, 2.0]> : vector<2xf32>
  %y = arith.constant dense<[10.0, 20.0, 30.0]> : vector<3xf32>
  %op = vector.outerproduct %x, %y : vector<2xf32>, vector<3xf32>
  vector.print %op : vector<2x3xf32>
  %sh = vector.shuffle %x, %y [4, 2, 3] : vector<2xf32>, vector<3xf32>
  vector.print %sh : vector<3xf32>

  %pairs = vector.shape_cast %v : vector<8xf32> to vector<4x2xf32>
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %psum = vector.multi_reduction <add>, %pairs, %zero [1] : vector<4x2xf32> to vector<4xf32>
  vector.print %psum : vector<4xf32>
  %total = vector.reduction <add>, %v : vector<8xf32> into f32
  vector.print %total : f32
  %t = vector.transpose %sc, [1, 0] : vector<2x4xf32> to vector<4x2xf32>
  vector.print %t : vector<4x2xf32>

  %sign = arith.constant dense<[1.0, -1.0, 1.0, -1.0]> : vector<4xf32>
  %head = vector.extract_strided_slice %v {offsets = [0], sizes = [4], strides = [1]}
      : vector<8xf32> to vector<4xf32>
  %fma = vector.fma %head, %sign, %zero : vector<4xf32>
  vector.print %fma : vector<4xf32>
  vector.print str "done\n"
  return
}
