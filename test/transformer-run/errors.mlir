// Every user error: one `Error:` line on stderr, exit status 1, nothing run
// (no EXEC line on stdout).

// RUN: rm -rf %t && split-file %s %t

// RUN: not transformer-run %t/main.mlir --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=ARITY
// ARITY: Error: @main takes 2 argument(s) but 1 --input value(s) were given
// ARITY-NOT: EXEC

// RUN: not transformer-run %t/main.mlir --input=2x4xf32=1 --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: Error: input 0 of @main: expected tensor<2x3xf32>, got 2x4xf32

// RUN: not transformer-run %t/main.mlir --input=2x3xf32=1 --input=3xi32=1 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: Error: input 1 of @main: expected tensor<3xf32>, got 3xi32

// RUN: not transformer-run %t/main.mlir --input=2x3xf32=1 --input=@%t/missing.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: Error: input 1: cannot read '{{.*}}missing.npy': No such file or directory

// RUN: printf 'not a numpy file' > %t/bad.npy
// RUN: not transformer-run %t/main.mlir --input=2x3xf32=1 --input=@%t/bad.npy 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: Error: input 1: '{{.*}}bad.npy': malformed .npy file: missing the \x93NUMPY magic

// A .npy whose header promises more data than the file holds.
// RUN: %python -c "import sys; sys.stdout.buffer.write(b'\x93NUMPY\x01\x00' + (118).to_bytes(2, 'little') + b\"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\".ljust(117) + b'\n' + b'\0' * 5)" > %t/trunc.npy
// RUN: not transformer-run %t/main.mlir --input=2x3xf32=1 --input=@%t/trunc.npy 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: Error: input 1: '{{.*}}trunc.npy': malformed .npy file: expected 12 bytes of data for shape 3xf32, found 5

// RUN: not transformer-run %t/main.mlir --input="2x3xf32=1 2 x 4 5 6" --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=BADVALUE
// BADVALUE: Error: input 0: bad f32 value 'x'

// RUN: not transformer-run %t/main.mlir --input="2x3xf32=1 2 3" --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: Error: input 0: '2x3xf32' needs 6 values (or one to fill it), got 3

// RUN: not transformer-run %t/main.mlir --input="2x3xf16=1" --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: Error: input 0: bad type '2x3xf16'

// RUN: not transformer-run %t/main.mlir --input="100000x100000x100xf32=0" --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: Error: input 0: '100000x100000x100xf32': tensor of 100000x100000x100 elements is larger than the 1024 MiB limit

// An empty shape whose other dims multiply past int64 (found by fuzz-inputs).
// RUN: not transformer-run %t/main.mlir --input="0x222228x2222x8x2222x2228x2x2228x2xf32=1" --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=EMPTYSHAPE
// EMPTYSHAPE: Error: input 0: '0x222228x2222x8x2222x2228x2x2228x2xf32': tensor of 0x222228x2222x8x2222x2228x2x2228x2 elements is larger than the 1024 MiB limit

// A .npy header that declares a huge shape.
// RUN: %python -c "import sys; h = b\"{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000, 100), }\".ljust(117) + b'\n'; sys.stdout.buffer.write(b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h)" > %t/huge.npy
// RUN: not transformer-run %t/main.mlir --input=2x3xf32=1 --input=@%t/huge.npy 2>&1 | FileCheck %s --check-prefix=NPYSHAPE
// NPYSHAPE: Error: input 1: '{{.*}}huge.npy': tensor of 100000x100000x100 elements is larger than the 1024 MiB limit

// RUN: not transformer-run %t/main.mlir --input="1 2 3" --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=NOSPEC
// NOSPEC: Error: input 0: cannot parse '1 2 3': expected @FILE.npy or SHAPExTYPE=VALUES

// RUN: not transformer-run %t/main.mlir -e nope 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: Error: no function @nope in the module

// RUN: not transformer-run %t/main.mlir --input=2x3xf32=1 --input=3xf32=1 --output=out.npy 2>&1 | FileCheck %s --check-prefix=OUTSPEC
// OUTSPEC: Error: --output=out.npy: expected @FILE.npy, +FILE.npy (append), @FILE.bin (raw), +FILE.bin, - (print) or nothing (skip)

// RUN: not transformer-run %t/main.mlir --input=2x3xf32=1 --input=3xf32=1 --expected-output=1xf32=1 --expected-output=1xf32=1 2>&1 | FileCheck %s --check-prefix=EXPECTED
// EXPECTED: Error: @main returns 1 result(s) but 2 --expected-output value(s) were given

// RUN: not transformer-run %t/nonexistent.mlir 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: Error: cannot read '{{.*}}nonexistent.mlir'

// RUN: not transformer-run %t/syntax.mlir 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: Error: {{.*}}syntax.mlir:1:{{[0-9]+}}: expected

// RUN: not transformer-run %t/verify.mlir 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: Error: {{.*}}verify.mlir:2:{{[0-9]+}}: 'transformer.softmax' op result type 'tensor<2x2xf32>' does not match

// Unsupported types at the function boundary.
// RUN: not transformer-run %t/f16.mlir --input=2xf32=1 2>&1 | FileCheck %s --check-prefix=F16
// F16: Error: @main: unsupported type tensor<2xf16> at the function boundary

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
//--- f16.mlir
func.func @main(%a: tensor<2xf16>) -> tensor<2xf16> {
  return %a : tensor<2xf16>
}
