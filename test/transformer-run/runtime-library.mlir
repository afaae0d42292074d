// Failed run-time checks call transformerRuntimeError in the project's
// runtime library (libTransformerRuntime.so); standard symbols stay
// standard, so a program's own vector.print prints (with upstream's runner
// utils loaded), and mlir-runner runs the compiled code with the runtime
// library.

// RUN: rm -rf %t && split-file %s %t

// The program prints with vector.print; the check failure is still one line.
// RUN: transformer-run %t/print.mlir --input=2x3xf32=1 --input=3x2xf32=1 --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so | FileCheck %s --check-prefix=PRINT
// PRINT: hello from the program 42
// PRINT-NEXT: 1.5
// PRINT-NEXT: EXEC @main
// PRINT-NEXT: result[0]: 2x2xf32={{\[\[}}3 3][3 3]]
// RUN: %exit-status 1 transformer-run %t/print.mlir --input=2x3xf32=1 --input=4x2xf32=1 --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so 2>&1 | FileCheck %s --check-prefix=PRINT-CHECK --match-full-lines --implicit-check-not={{.}}
// PRINT-CHECK: hello from the program 42
// PRINT-CHECK-NEXT: 1.5
// PRINT-CHECK-NEXT: Error: run-time check failed: transformer.matmul: the inner dimensions of lhs and rhs differ (lhs K = 3, rhs K = 4)

// A user's own cf.assert is a run-time check too; `%` is kept literally.
// RUN: %exit-status 1 transformer-run %t/assert.mlir --input=i64=-1 2>&1 | FileCheck %s --check-prefix=ASSERT --match-full-lines --implicit-check-not={{.}}
// ASSERT: Error: run-time check failed: n must be >= 0 (100% sure)
// RUN: transformer-run %t/assert.mlir --input=i64=2 | FileCheck %s --check-prefix=ASSERT-OK
// ASSERT-OK: result[0]: i64=2

// The generated code names the runtime function, not puts/abort.
// RUN: transformer-opt --transformer-to-llvm %t/embedding.mlir | FileCheck %s --check-prefix=IR
// IR: llvm.func @transformerRuntimeError(!llvm.ptr, ...)
// IR-NOT: @abort
// IR-NOT: @puts
// IR: llvm.call @transformerRuntimeError({{.*}}) vararg(!llvm.func<void (ptr, ...)>) : (!llvm.ptr, i64, i64, i64) -> ()

// mlir-runner runs what transformer-opt compiled, with the runtime library.
// (One thread: no OpenMP runtime to load.)
// RUN: transformer-opt --transformer-to-llvm=threads=1 %t/embedding.mlir -o %t/embedding.ll.mlir
// RUN: %exit-status 1 mlir-runner %t/embedding.ll.mlir -e main --entry-point-result=void --shared-libs=%transformer_lib_dir/libTransformerRuntime.so,%mlir_lib_dir/libmlir_c_runner_utils.so 2>&1 | FileCheck %s --check-prefix=MLIR-RUNNER --match-full-lines --implicit-check-not={{.}}
// MLIR-RUNNER: before
// MLIR-RUNNER-NEXT: Error: run-time check failed: transformer.embedding: a token id is outside [0, V) of the table (min id = 0, max id = 7, V = 4)
// MLIR-RUNNER-NOT: 1

// The same LLVM-dialect module through transformer-run.
// RUN: %exit-status 1 transformer-run %t/embedding.ll.mlir --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so 2>&1 | FileCheck %s --check-prefix=MLIR-RUNNER --match-full-lines --implicit-check-not={{.}}

//--- print.mlir
func.func @main(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c = arith.constant 42 : i64
  %f = arith.constant 1.5 : f32
  vector.print str "hello from the program "
  vector.print %c : i64
  vector.print %f : f32
  %0 = transformer.matmul %a, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
//--- assert.mlir
func.func @main(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %ok = arith.cmpi sge, %n, %c0 : i64
  cf.assert %ok, "n must be >= 0 (100% sure)"
  return %n : i64
}
//--- embedding.mlir
func.func @main() {
  %ids = arith.constant dense<[0, 7]> : tensor<2xi32>
  %t = arith.constant dense<1.0> : tensor<4x2xf32>
  vector.print str "before\n"
  %0 = transformer.embedding %ids, %t : tensor<2xi32>, tensor<4x2xf32> -> tensor<2x2xf32>
  %c0 = arith.constant 0 : index
  %x = tensor.extract %0[%c0, %c0] : tensor<2x2xf32>
  vector.print %x : f32
  return
}
