// The iree-run-module habits: --output=@f.npy / +f.npy (append) / @f.bin
// (raw) / empty (skip), raw binary inputs, an expected output of (ignored),
// rank-0 tensors inline; --mlir-timing and --print-compile-time.

// RUN: rm -rf %t && mkdir -p %t

// Raw binary input: 2x3 f32 little-endian, 1..6.
// RUN: %python -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<6f', 1, 2, 3, 4, 5, 6))" > %t/x.bin
// RUN: transformer-run %s -e two --input=2x3xf32=@%t/x.bin | FileCheck %s --check-prefix=RAWIN
// RAWIN: result[0]: 2x3xf32={{\[\[}}2 4 6][8 10 12]]
// RAWIN-NEXT: result[1]: 2x3xf32={{\[\[}}1 2 3][4 5 6]]
// RUN: %exit-status 1 transformer-run %s -e two --input=3x3xf32=@%t/x.bin 2>&1 | FileCheck %s --check-prefix=RAWSIZE --match-full-lines --implicit-check-not={{.}}
// RAWSIZE: Error: input 0: '{{.*}}x.bin' holds 24 bytes, not the 36 of 3x3xf32
// RUN: %exit-status 1 transformer-run %s -e two --input=@%t/x.bin 2>&1 | FileCheck %s --check-prefix=RAWSHAPE --match-full-lines --implicit-check-not={{.}}
// RAWSHAPE: Error: input 0: '@{{.*}}x.bin': a raw binary file needs its shape and type: SHAPExTYPE=@{{.*}}x.bin

// An empty --output skips a result; @f.bin writes raw bytes.
// RUN: transformer-run %s -e two --input=2x3xf32=@%t/x.bin --output= --output=@%t/second.bin | FileCheck %s --check-prefix=SKIP --implicit-check-not=result
// SKIP: EXEC @two
// RUN: cmp %t/x.bin %t/second.bin

// +f.npy appends arrays that np.load on the opened file reads in turn.
// RUN: transformer-run %s -e two --input=2x3xf32=@%t/x.bin --output=@%t/out.npy --output=+%t/out.npy
// RUN: transformer-run %s -e two --input=2x3xf32=0.5 --output=+%t/out.npy --output=-
// RUN: %python -c "import numpy as np; f = open('%t/out.npy', 'rb'); a = [np.load(f) for _ in range(3)]; print(a[0].tolist(), a[1].tolist(), a[2].tolist())" | FileCheck %s --check-prefix=APPEND
// APPEND: {{\[\[}}2.0, 4.0, 6.0], [8.0, 10.0, 12.0]] {{\[\[}}1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] {{\[\[}}1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
// REQUIRES: numpy

// (ignored) accepts any result; the others are still compared.
// RUN: transformer-run %s -e two --input=2x3xf32=1 --expected-output="(ignored)" --expected-output=2x3xf32=1 | FileCheck %s --check-prefix=IGNORED
// IGNORED: [SUCCESS] all 2 result(s) match the expected values
// RUN: %exit-status 1 transformer-run %s -e two --input=2x3xf32=1 --expected-output="(ignored)" --expected-output=2x3xf32=7 | FileCheck %s --check-prefix=IGNORED-FAIL --match-full-lines --implicit-check-not=FAILED
// IGNORED-FAIL: EXEC @two
// IGNORED-FAIL-NEXT: result[0]: 2x3xf32={{\[\[}}2 2 2][2 2 2]]
// IGNORED-FAIL-NEXT: result[1]: 2x3xf32={{\[\[}}1 1 1][1 1 1]]
// IGNORED-FAIL-NEXT: [FAILED] result[1]: element at index 0 (1) does not match the expected (7)
// IGNORED-FAIL-EMPTY:

// A rank-0 tensor inline, as iree-run-module spells it; scalars still work.
// RUN: transformer-run %s -e rank0 --input=f32=3.5 --input=f32=1 --expected-output=f32=4.5 | FileCheck %s --check-prefix=RANK0
// RANK0: result[0]: f32=4.5
// RANK0: [SUCCESS]
// RUN: transformer-run %s -e rank0 --input=f32=3.5 --input=2 | FileCheck %s --check-prefix=RANK0-BARE
// RANK0-BARE: result[0]: f32=5.5
// RUN: %exit-status 1 transformer-run %s -e rank0 --input=i32=3 --input=2 2>&1 | FileCheck %s --check-prefix=RANK0-TYPE --match-full-lines --implicit-check-not={{.}}
// RANK0-TYPE: Error: input 0 of @rank0: expected tensor<f32>, got i32

// Pass timings and the LLVM compile time.
// RUN: transformer-run %s -e two --input=2x3xf32=1 --mlir-timing 2>&1 | FileCheck %s --check-prefix=TIMING
// TIMING: Execution time report
// TIMING-DAG: to linalg on tensors
// TIMING-DAG: ConvertTransformerToLinalgPass
// TIMING-DAG: to the LLVM dialect
// TIMING-DAG: OneShotBufferizePass
// TIMING-DAG: JIT compile (LLVM)

// The compile time alone, without benchmarking.
// RUN: transformer-run %s -e two --input=2x3xf32=1 --print-compile-time | FileCheck %s --check-prefix=COMPILE --implicit-check-not=repetitions
// COMPILE: compile: {{[0-9.]+}} ms
// COMPILE-NEXT: EXEC @two

func.func @two(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = transformer.add %x, %x : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %0, %x : tensor<2x3xf32>, tensor<2x3xf32>
}

func.func @rank0(%a: tensor<f32>, %s: f32) -> tensor<f32> {
  %0 = tensor.extract %a[] : tensor<f32>
  %1 = arith.addf %0, %s : f32
  %2 = tensor.from_elements %1 : tensor<f32>
  return %2 : tensor<f32>
}
