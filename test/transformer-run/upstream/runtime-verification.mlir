// Upstream ops whose sizes are only known at run time are checked by the
// compiled code (--transformer-generate-runtime-checks: upstream's
// RuntimeVerifiableOpInterface, always at -O0, with --runtime-verification
// at -O2): a mismatch stops the program with the project's one-line
// run-time error, exit status 1, and nothing is read or written out of
// bounds. This was a segfault at -O0 (a linalg.generic whose operands'
// dynamic sizes differ); the sanitizer build (scripts/test-sanitizers.sh)
// runs this file under AddressSanitizer too.

// RUN: rm -rf %t && split-file %s %t

// Matching sizes pass the checks.
// RUN: transformer-run %t/generic.mlir -O0 --input="4xf32=1 2 3 4" --input="4xf32=10 20 30 40" | FileCheck %s --check-prefix=OK
// RUN: transformer-run %t/generic.mlir -O2 --runtime-verification --input="4xf32=1 2 3 4" --input="4xf32=10 20 30 40" | FileCheck %s --check-prefix=OK
// OK: result[0]: 4xf32=[11 22 33 44]

// RUN: %exit-status 1 transformer-run %t/generic.mlir -O0 --input="4xf32=1 2 3 4" --input="2xf32=10 20" 2>&1 | FileCheck %s --check-prefix=GENERIC --match-full-lines --implicit-check-not={{.}}
// RUN: %exit-status 1 transformer-run %t/generic.mlir -O2 --runtime-verification --input="4xf32=1 2 3 4" --input="2xf32=10 20" 2>&1 | FileCheck %s --check-prefix=GENERIC --match-full-lines --implicit-check-not={{.}}
// GENERIC: Error: run-time check failed: linalg.generic at {{.*}}generic.mlir:3:8: dimension #0 of input/output operand #1 is incompatible with inferred dimension size

// An upstream-style program with no arguments, run as under mlir-runner.
// RUN: %exit-status 1 transformer-run %t/print.mlir -e main --entry-point-result=void -O0 --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so 2>&1 | FileCheck %s --check-prefix=PRINT --match-full-lines --implicit-check-not={{.}}
// PRINT: Error: run-time check failed: linalg.generic at {{.*}}print.mlir:{{[0-9]+}}:8: dimension #0 of input/output operand #1 is incompatible with inferred dimension size

// Out-of-bounds slices and loads.
// RUN: %exit-status 1 transformer-run %t/slice.mlir -O0 --input="8xf32=0" --input=index=6 2>&1 | FileCheck %s --check-prefix=SLICE --match-full-lines --implicit-check-not={{.}}
// SLICE: Error: run-time check failed: tensor.extract_slice at {{.*}}slice.mlir:3:8: extract_slice runs out-of-bounds along dimension 0
// RUN: transformer-run %t/slice.mlir -O0 --input="8xf32=1 2 3 4 5 6 7 8" --input=index=4 | FileCheck %s --check-prefix=SLICE-OK
// SLICE-OK: result[0]: 4xf32=[5 6 7 8]
// RUN: %exit-status 1 transformer-run %t/load.mlir -O0 --input=index=5 2>&1 | FileCheck %s --check-prefix=LOAD --match-full-lines --implicit-check-not={{.}}
// LOAD: Error: run-time check failed: memref.load at {{.*}}load.mlir:6:8: out-of-bounds access
// RUN: transformer-run %t/load.mlir -O0 --input=index=3 | FileCheck %s --check-prefix=LOAD-OK
// LOAD-OK: result[0]: f32=3

// The pipeline option, and the pass on its own.
// RUN: transformer-opt %t/generic.mlir --transformer-generate-runtime-checks | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @main
// IR:       cf.assert %{{.*}}, "linalg.generic at {{.*}}generic.mlir:3:8: dimension #0 of input/output operand #1 is incompatible with inferred dimension size"
// IR:       linalg.generic
// RUN: transformer-opt %t/generic.mlir --transformer-to-llvm="opt-level=2" | FileCheck %s --check-prefix=NO-CHECKS
// RUN: transformer-opt %t/generic.mlir --transformer-to-llvm="opt-level=2 runtime-verification=true" | FileCheck %s --check-prefix=CHECKS
// NO-CHECKS-NOT: transformerRuntimeError
// CHECKS: transformerRuntimeError

//--- generic.mlir
#id = affine_map<(d0) -> (d0)>
func.func @main(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%a : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

//--- print.mlir
#id = affine_map<(d0) -> (d0)>
func.func private @printMemrefF32(tensor<*xf32>)
func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%a : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
func.func @main() {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %da = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
  %db = tensor.cast %b : tensor<2xf32> to tensor<?xf32>
  %r = call @add(%da, %db) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %u = tensor.cast %r : tensor<?xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

//--- slice.mlir
func.func @main(%t: tensor<?xf32>, %offset: index) -> tensor<4xf32> {
  %c4 = arith.constant 4 : index
  %s = tensor.extract_slice %t[%offset] [4] [1] : tensor<?xf32> to tensor<4xf32>
  return %s : tensor<4xf32>
}

//--- load.mlir
func.func @main(%i: index) -> f32 {
  %m = memref.alloca() : memref<4xf32>
  %c3 = arith.constant 3.0 : f32
  %c3i = arith.constant 3 : index
  memref.store %c3, %m[%c3i] : memref<4xf32>
  %v = memref.load %m[%i] : memref<4xf32>
  return %v : f32
}
