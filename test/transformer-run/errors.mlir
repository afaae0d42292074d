// Every user error: one `Error:` line on stderr, exit status 1 (checked
// exactly by %exit-status; `not` would accept any), nothing run (no EXEC line
// on stdout) and nothing else printed.

// RUN: rm -rf %t && split-file %s %t

// RUN: %exit-status 1 transformer-run %t/main.mlir --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=ARITY --match-full-lines --implicit-check-not={{.}}
// ARITY: Error: @main takes 2 argument(s) but 1 --input value(s) were given

// RUN: %exit-status 1 transformer-run %t/main.mlir --input=2x4xf32=1 --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=SHAPE --match-full-lines --implicit-check-not={{.}}
// SHAPE: Error: input 0 of @main: expected tensor<2x3xf32>, got 2x4xf32

// RUN: %exit-status 1 transformer-run %t/main.mlir --input=2x3xf32=1 --input=3xi32=1 2>&1 | FileCheck %s --check-prefix=TYPE --match-full-lines --implicit-check-not={{.}}
// TYPE: Error: input 1 of @main: expected tensor<3xf32>, got 3xi32

// RUN: %exit-status 1 transformer-run %t/main.mlir --input=2x3xf32=1 --input=@%t/missing.npy 2>&1 | FileCheck %s --check-prefix=MISSING --match-full-lines --implicit-check-not={{.}}
// MISSING: Error: input 1: cannot read '{{.*}}missing.npy': No such file or directory

// RUN: printf 'not a numpy file' > %t/bad.npy
// RUN: %exit-status 1 transformer-run %t/main.mlir --input=2x3xf32=1 --input=@%t/bad.npy 2>&1 | FileCheck %s --check-prefix=MALFORMED --match-full-lines --implicit-check-not={{.}}
// MALFORMED: Error: input 1: '{{.*}}bad.npy': malformed .npy file: missing the \x93NUMPY magic

// A .npy whose header promises more data than the file holds.
// RUN: %python -c "import sys; sys.stdout.buffer.write(b'\x93NUMPY\x01\x00' + (118).to_bytes(2, 'little') + b\"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\".ljust(117) + b'\n' + b'\0' * 5)" > %t/trunc.npy
// RUN: %exit-status 1 transformer-run %t/main.mlir --input=2x3xf32=1 --input=@%t/trunc.npy 2>&1 | FileCheck %s --check-prefix=TRUNCATED --match-full-lines --implicit-check-not={{.}}
// TRUNCATED: Error: input 1: '{{.*}}trunc.npy': malformed .npy file: expected 12 bytes of data for shape 3xf32, found 5

// RUN: %exit-status 1 transformer-run %t/main.mlir --input="2x3xf32=1 2 x 4 5 6" --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=BADVALUE --match-full-lines --implicit-check-not={{.}}
// BADVALUE: Error: input 0: bad f32 value 'x'

// RUN: %exit-status 1 transformer-run %t/main.mlir --input="2x3xf32=1 2 3" --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=COUNT --match-full-lines --implicit-check-not={{.}}
// COUNT: Error: input 0: '2x3xf32' needs 6 values (or one to fill it), got 3

// RUN: %exit-status 1 transformer-run %t/main.mlir --input="2x3xf64=1" --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=DTYPE --match-full-lines --implicit-check-not={{.}}
// DTYPE: Error: input 0: bad type '2x3xf64' (expected SHAPExTYPE such as 2x3xf32, with TYPE one of f32, f16, bf16, i8, i32, i64, index)

// RUN: %exit-status 1 transformer-run %t/main.mlir --input="100000x100000x100xf32=0" --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=HUGE --match-full-lines --implicit-check-not={{.}}
// HUGE: Error: input 0: '100000x100000x100xf32': tensor of 100000x100000x100 elements is larger than the 1024 MiB limit

// An empty shape whose other dims multiply past int64 (found by fuzz-inputs).
// RUN: %exit-status 1 transformer-run %t/main.mlir --input="0x222228x2222x8x2222x2228x2x2228x2xf32=1" --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=EMPTYSHAPE --match-full-lines --implicit-check-not={{.}}
// EMPTYSHAPE: Error: input 0: '0x222228x2222x8x2222x2228x2x2228x2xf32': tensor of 0x222228x2222x8x2222x2228x2x2228x2 elements is larger than the 1024 MiB limit

// A .npy header that declares a huge shape.
// RUN: %python -c "import sys; h = b\"{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000, 100), }\".ljust(117) + b'\n'; sys.stdout.buffer.write(b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h)" > %t/huge.npy
// RUN: %exit-status 1 transformer-run %t/main.mlir --input=2x3xf32=1 --input=@%t/huge.npy 2>&1 | FileCheck %s --check-prefix=NPYSHAPE --match-full-lines --implicit-check-not={{.}}
// NPYSHAPE: Error: input 1: '{{.*}}huge.npy': tensor of 100000x100000x100 elements is larger than the 1024 MiB limit

// RUN: %exit-status 1 transformer-run %t/main.mlir --input="1 2 3" --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=NOSPEC --match-full-lines --implicit-check-not={{.}}
// NOSPEC: Error: input 0: cannot parse '1 2 3': expected @FILE.npy or SHAPExTYPE=VALUES (e.g. 2x3xf32=1 2 3 4 5 6)

// RUN: %exit-status 1 transformer-run %t/main.mlir -e nope 2>&1 | FileCheck %s --check-prefix=ENTRY --match-full-lines --implicit-check-not={{.}}
// ENTRY: Error: no function @nope in the module

// RUN: %exit-status 1 transformer-run %t/main.mlir --input=2x3xf32=1 --input=3xf32=1 --output=out.npy 2>&1 | FileCheck %s --check-prefix=OUTSPEC --match-full-lines --implicit-check-not={{.}}
// OUTSPEC: Error: --output=out.npy: expected @FILE.npy, +FILE.npy (append), @FILE.bin (raw), +FILE.bin, - (print) or nothing (skip)

// RUN: %exit-status 1 transformer-run %t/main.mlir --input=2x3xf32=1 --input=3xf32=1 --expected-output=1xf32=1 --expected-output=1xf32=1 2>&1 | FileCheck %s --check-prefix=EXPECTED --match-full-lines --implicit-check-not={{.}}
// EXPECTED: Error: @main returns 1 result(s) but 2 --expected-output value(s) were given

// RUN: %exit-status 1 transformer-run %t/nonexistent.mlir 2>&1 | FileCheck %s --check-prefix=NOFILE --match-full-lines --implicit-check-not={{.}}
// NOFILE: Error: cannot read '{{.*}}nonexistent.mlir': cannot open input file '{{.*}}nonexistent.mlir': No such file or directory

// RUN: %exit-status 1 transformer-run %t/syntax.mlir 2>&1 | FileCheck %s --check-prefix=SYNTAX --match-full-lines --implicit-check-not={{.}}
// SYNTAX: Error: {{.*}}syntax.mlir:1:17: expected non-function type

// RUN: %exit-status 1 transformer-run %t/verify.mlir 2>&1 | FileCheck %s --check-prefix=VERIFY --match-full-lines --implicit-check-not={{.}}
// VERIFY: Error: {{.*}}verify.mlir:2:8: 'transformer.softmax' op result type 'tensor<2x2xf32>' does not match the type 'tensor<2x3xf32>' inferred from the operands

// Unsupported types at the function boundary.
// RUN: %exit-status 1 transformer-run %t/f64.mlir --input=2xf32=1 2>&1 | FileCheck %s --check-prefix=F64 --match-full-lines --implicit-check-not={{.}}
// F64: Error: @main: unsupported type tensor<2xf64> at the function boundary (only ranked tensors and scalars of f32, f16, bf16, i8, i32, i64, index)

//--- main.mlir
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = transformer.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
//--- syntax.mlir
func.func @main( {
//--- verify.mlir
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %0 = transformer.softmax %a : tensor<2x3xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
//--- f64.mlir
func.func @main(%a: tensor<2xf64>) -> tensor<2xf64> {
  return %a : tensor<2xf64>
}
