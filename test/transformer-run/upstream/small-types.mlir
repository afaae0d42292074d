// Float types narrower than f32 in upstream-style programs: bf16 and f16
// are LLVM types; f4E2M1FN and f8E8M0FNU are not, and their truncf/extf
// are expanded into integer arithmetic (upstream's arith-expand), at -O0
// as at -O2, printing what mlir-runner prints. A type that has no lowering
// at all is named in a one-line error.

// RUN: rm -rf %t && split-file %s %t
// RUN: %mlir-runner-parity %t/narrow.mlir --pipeline="--arith-expand=include-f4e2m1=true --arith-expand=include-f8e8m0=true --test-lower-to-llvm" -e main --entry-point-result=void --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so | FileCheck %s --match-full-lines

// f4E2M1FN holds 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives (saturating
// at 6); f8E8M0FNU only powers of two (truncf keeps the exponent: rounds down);
// bf16 keeps 8 bits of mantissa, f16 11.
// CHECK:      ( 0.5, 1, 4, -3, 6, 6 )
// CHECK-NEXT: ( 0.5, 1.20312, 3.70312, -2.90625, 7, 100 )
// CHECK-NEXT: ( 0.5, 1.2002, 3.69922, -2.90039, 7, 100 )
// CHECK-NEXT: ( 0.5, 1, 2, 4, 64 )

// RUN: %exit-status 1 transformer-run %t/f8.mlir -O0 --entry-point-result=void --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so 2>&1 | FileCheck %s --check-prefix=F8 --match-full-lines --implicit-check-not={{.}}
// RUN: %exit-status 1 transformer-run %t/f8.mlir -O2 --entry-point-result=void --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so 2>&1 | FileCheck %s --check-prefix=F8 --match-full-lines --implicit-check-not={{.}}
// F8: Error: {{.*}}f8.mlir:4:8: 'arith.truncf' op has no lowering to LLVM for type 'vector<4xf8E4M3FN>': its element type 'f8E4M3FN' is not supported

// The check on its own, on what the pipeline left.
// RUN: transformer-opt %t/f8.mlir --transformer-to-llvm="opt-level=0" --split-input-file --verify-diagnostics > /dev/null

//--- narrow.mlir
func.func @main() {
  %v = arith.constant dense<[0.5, 1.2, 3.7, -2.9, 7.0, 100.0]> : vector<6xf32>
  %f4 = arith.truncf %v : vector<6xf32> to vector<6xf4E2M1FN>
  %f4e = arith.extf %f4 : vector<6xf4E2M1FN> to vector<6xf32>
  vector.print %f4e : vector<6xf32>
  %bf = arith.truncf %v : vector<6xf32> to vector<6xbf16>
  %bfe = arith.extf %bf : vector<6xbf16> to vector<6xf32>
  vector.print %bfe : vector<6xf32>
  %h = arith.truncf %v : vector<6xf32> to vector<6xf16>
  %he = arith.extf %h : vector<6xf16> to vector<6xf32>
  vector.print %he : vector<6xf32>
  %p = arith.constant dense<[0.5, 1.5, 3.0, 5.0, 100.0]> : vector<5xf32>
  %e8 = arith.truncf %p : vector<5xf32> to vector<5xf8E8M0FNU>
  %e8e = arith.extf %e8 : vector<5xf8E8M0FNU> to vector<5xf32>
  vector.print %e8e : vector<5xf32>
  return
}

//--- f8.mlir
func.func @main() {
  %v = arith.constant dense<[0.5, 1.2, 3.7, -2.9]> : vector<4xf32>
  // expected-error@+1 {{'arith.truncf' op has no lowering to LLVM for type 'vector<4xf8E4M3FN>': its element type 'f8E4M3FN' is not supported}}
  %t = arith.truncf %v : vector<4xf32> to vector<4xf8E4M3FN>
  %e = arith.extf %t : vector<4xf8E4M3FN> to vector<4xf32>
  vector.print %e : vector<4xf32>
  return
}
