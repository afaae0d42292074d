// Input forms, printing, .npy round trips and --expected-output.

// RUN: transformer-run %s -e add --input="2x3xf32=1 2 3 4 5 6" --input="3xf32=[10, 20, 30]" | FileCheck %s --check-prefix=INLINE
// INLINE: EXEC @add
// INLINE-NEXT: result[0]: 2x3xf32={{\[\[}}11 22 33][14 25 36]]

// RUN: transformer-run %s -e add --input="2x3xf32=[[1 2 3][4 5 6]]" --input=3xf32=0.5 | FileCheck %s --check-prefix=SPLAT
// SPLAT: result[0]: 2x3xf32={{\[\[}}1.5 2.5 3.5][4.5 5.5 6.5]]

// Scalars: TYPE=VALUE, or a bare number typed by the signature.
// RUN: transformer-run %s -e scalars --input=f32=2.5 --input=3 | FileCheck %s --check-prefix=SCALAR
// SCALAR: result[0]: 4xf32=[2.5 2.5 2.5 2.5]
// SCALAR-NEXT: result[1]: index=3

// Large results are elided in the middle: three elements at each end of
// every dimension longer than six, once the tensor has more elements than
// --output-max-element-count (default 1024). 0, 1, 2, ... as raw f32.
// RUN: %python -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<1056f', *range(1056)))" > %t.iota.bin
// RUN: head -c 256 %t.iota.bin > %t.iota64.bin
// RUN: head -c 4096 %t.iota.bin > %t.iota1024.bin
// RUN: transformer-run %s -e relu --input=8x8xf32=@%t.iota64.bin --output-max-element-count=63 | FileCheck %s --check-prefix=ELIDE
// ELIDE: result[0]: 8x8xf32={{\[\[}}0 1 2 ... 5 6 7][8 9 10 ... 13 14 15][16 17 18 ... 21 22 23]...[40 41 42 ... 45 46 47][48 49 50 ... 53 54 55][56 57 58 ... 61 62 63]]{{$}}
// RUN: transformer-run %s -e relu --input=8x8xf32=@%t.iota64.bin --output-max-element-count=64 | FileCheck %s --check-prefix=ELIDE-AT-LIMIT
// ELIDE-AT-LIMIT: result[0]: 8x8xf32={{\[\[}}0 1 2 3 4 5 6 7][8 9 10 11 12 13 14 15][16 17 18 19 20 21 22 23][24 25 26 27 28 29 30 31][32 33 34 35 36 37 38 39][40 41 42 43 44 45 46 47][48 49 50 51 52 53 54 55][56 57 58 59 60 61 62 63]]{{$}}
// RUN: transformer-run %s -e relu --input=33x32xf32=@%t.iota.bin | FileCheck %s --check-prefix=ELIDE-DEFAULT
// ELIDE-DEFAULT: result[0]: 33x32xf32={{\[\[}}0 1 2 ... 29 30 31][32 33 34 ... 61 62 63][64 65 66 ... 93 94 95]...[960 961 962 ... 989 990 991][992 993 994 ... 1021 1022 1023][1024 1025 1026 ... 1053 1054 1055]]{{$}}
// RUN: transformer-run %s -e relu --input=32x32xf32=@%t.iota1024.bin | FileCheck %s --check-prefix=NOELIDE-DEFAULT --implicit-check-not=...
// NOELIDE-DEFAULT: result[0]: 32x32xf32={{\[\[}}0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31][32 33 {{.*}} 1021 1022 1023]]{{$}}

// Random inputs are reproducible: the same --seed gives the same values, a
// different seed different ones, and each input draws its own values.
// RUN: transformer-run %s -e relu --input=4x4xf32=random --seed=7 > %t.a
// RUN: transformer-run %s -e relu --input=4x4xf32=random --seed=7 > %t.b
// RUN: transformer-run %s -e relu --input=4x4xf32=random --seed=8 > %t.c
// RUN: transformer-run %s -e relu --input=4x4xf32=random > %t.d
// RUN: diff %t.a %t.b
// RUN: not diff %t.a %t.c
// RUN: not diff %t.a %t.d
// RUN: transformer-run %s -e pair --input=8xf32=random --input=8xf32=random --seed=7 | FileCheck %s --check-prefix=RANDPAIR
// RANDPAIR: result[0]: 8xf32=[[FIRST:\[.*\]]]
// RANDPAIR-NEXT: result[1]: 8xf32=
// RANDPAIR-NOT: [[FIRST]]
// RUN: transformer-run %s -e relu --input=2x3xf32=1 --output-max-element-count=2 | FileCheck %s --check-prefix=SMALL
// SMALL: result[0]: 2x3xf32={{\[\[}}1 1 1][1 1 1]]

// --output writes .npy files that read back as inputs and expected values.
// RUN: transformer-run %s -e add --input="2x3xf32=1 2 3 4 5 6" --input="3xf32=1 1 1" --output=@%t.npy | FileCheck %s --check-prefix=WRITE
// WRITE: EXEC @add
// WRITE-NOT: result[0]
// RUN: transformer-run %s -e relu --input=@%t.npy | FileCheck %s --check-prefix=READ
// READ: result[0]: 2x3xf32={{\[\[}}2 3 4][5 6 7]]
// RUN: transformer-run %s -e relu --input=2x3xf32=@%t.npy --expected-output=@%t.npy | FileCheck %s --check-prefix=SUCCESS
// SUCCESS: [SUCCESS]

// RUN: transformer-run %s -e add --input="2x3xf32=1 2 3 4 5 6" --input="3xf32=0" --expected-output="2x3xf32=1 2 3 4 5 6.00001" | FileCheck %s --check-prefix=SUCCESS
// RUN: not transformer-run %s -e add --input="2x3xf32=1 2 3 4 5 6" --input="3xf32=0" --expected-output="2x3xf32=1 2 3 4 5 7" | FileCheck %s --check-prefix=FAILED
// FAILED: [FAILED] result[0]: element at index 5 (6) does not match the expected (7)
// RUN: not transformer-run %s -e add --input="2x3xf32=1 2 3 4 5 6" --input="3xf32=0" --expected-output="2x3xf32=1 2 3 4 5 6.1" --expected-f32-threshold=0.01 | FileCheck %s --check-prefix=FAILED-THRESHOLD
// FAILED-THRESHOLD: [FAILED] result[0]: element at index 5 (6) does not match the expected (6.1)

// Integer tensors and --function.
// RUN: transformer-run %s --function=ids --input="3xi64=5 -1 9000000000" | FileCheck %s --check-prefix=INT
// INT: result[0]: 3xi64=[5 -1 9000000000]

// NaN and infinities pass through (printed like numpy).
// RUN: transformer-run %s -e relu --input="1x3xf32=nan -inf inf" | FileCheck %s --check-prefix=NAN
// NAN: result[0]: 1x3xf32={{\[\[}}nan 0 inf]]

func.func @add(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = transformer.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

func.func @relu(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.relu %x : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @scalars(%a: f32, %n: index) -> (tensor<4xf32>, index) {
  %t = tensor.splat %a : tensor<4xf32>
  return %t, %n : tensor<4xf32>, index
}

func.func @pair(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

func.func @ids(%x: tensor<3xi64>) -> tensor<3xi64> {
  return %x : tensor<3xi64>
}
