// mlir-runner's --entry-point-result: the function returns nothing or one
// scalar, which is printed as mlir-runner prints it (no `EXEC` header, no
// `result[0]:`). Each program is also lowered by transformer-opt and run by
// mlir-runner itself, and the outputs must be the same.

// RUN: rm -rf %t && split-file %s %t
// RUN: for kind in void i32 i64 f32; do \
// RUN:   for level in -O0 -O2; do \
// RUN:     transformer-run %t/$kind.mlir -e main --entry-point-result=$kind $level \
// RUN:       --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so > %t/$kind$level.out || exit 1; \
// RUN:   done; \
// RUN:   transformer-opt --transformer-to-llvm %t/$kind.mlir | \
// RUN:     mlir-runner -e main --entry-point-result=$kind \
// RUN:       --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so > %t/$kind.expected || exit 1; \
// RUN:   diff %t/$kind.expected %t/$kind-O0.out && diff %t/$kind.expected %t/$kind-O2.out || exit 1; \
// RUN: done
// RUN: cat %t/void-O2.out %t/i32-O2.out %t/i64-O2.out %t/f32-O2.out | FileCheck %s --match-full-lines --implicit-check-not={{.}}
// CHECK:      ( 1, 2, 3 )
// CHECK-NEXT: 42
// CHECK-NEXT: -1099511627776
// CHECK-NEXT: 6.500000e+00

// A module already in the LLVM dialect takes the flag too.
// RUN: transformer-opt --transformer-to-llvm %t/f32.mlir -o %t/f32.ll.mlir
// RUN: transformer-run %t/f32.ll.mlir --entry-point-result=f32 | FileCheck %s --check-prefix=LLVM --match-full-lines
// LLVM: 6.500000e+00

// The flag and the function disagree: one line, exit status 1, nothing run.
// RUN: %exit-status 1 transformer-run %t/i32.mlir --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=NOT-VOID --match-full-lines --implicit-check-not={{.}}
// NOT-VOID: Error: --entry-point-result=void expects @main to return nothing, but it returns i32
// RUN: %exit-status 1 transformer-run %t/void.mlir --entry-point-result=f32 --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so 2>&1 | FileCheck %s --check-prefix=NOT-F32 --match-full-lines --implicit-check-not={{.}}
// NOT-F32: Error: --entry-point-result=f32 expects @main to return one f32, but it returns nothing
// RUN: %exit-status 1 transformer-run %t/tensor.mlir --entry-point-result=i64 2>&1 | FileCheck %s --check-prefix=TENSOR --match-full-lines --implicit-check-not={{.}}
// TENSOR: Error: --entry-point-result=i64 expects @main to return one i64, but it returns tensor<2xf32>
// RUN: not transformer-run %t/i32.mlir --entry-point-result=f64 2>&1 | FileCheck %s --check-prefix=BAD-VALUE
// BAD-VALUE: Cannot find option named 'f64'!

//--- void.mlir
func.func @main() {
  %v = arith.constant dense<[1, 2, 3]> : vector<3xi32>
  vector.print %v : vector<3xi32>
  return
}
//--- i32.mlir
func.func @main() -> i32 {
  %a = arith.constant 40 : i32
  %b = arith.constant 2 : i32
  %s = arith.addi %a, %b : i32
  return %s : i32
}
//--- i64.mlir
func.func @main() -> i64 {
  %a = arith.constant -1 : i64
  %s = arith.constant 40 : i64
  %r = arith.shli %a, %s : i64
  return %r : i64
}
//--- f32.mlir
func.func @main() -> f32 {
  %a = arith.constant 2.5 : f32
  %b = arith.constant 4.0 : f32
  %r = arith.addf %a, %b : f32
  return %r : f32
}
//--- tensor.mlir
func.func @main() -> tensor<2xf32> {
  %a = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %a : tensor<2xf32>
}
