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

// Large results are elided in the middle; random inputs are reproducible.
// RUN: transformer-run %s -e relu --input=64x64xf32=random --seed=7 | FileCheck %s --check-prefix=ELIDE
// RUN: transformer-run %s -e relu --input=64x64xf32=random --seed=7 > %t.a
// RUN: transformer-run %s -e relu --input=64x64xf32=random --seed=7 > %t.b
// RUN: diff %t.a %t.b
// ELIDE: result[0]: 64x64xf32={{\[\[}}{{.*}} ... {{.*}}]...[{{.*}}]]
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

func.func @ids(%x: tensor<3xi64>) -> tensor<3xi64> {
  return %x : tensor<3xi64>
}
