// --emit shows the program at each stage; -O levels and benchmarking.

// RUN: transformer-run %s -O1 --emit=linalg | FileCheck %s --check-prefix=LINALG
// At -O2 (the default) the attention is a call of a flash kernel: with
// Sq = 4, the decoding kernel.
// RUN: transformer-run %s --emit=linalg | FileCheck %s --check-prefix=FLASH
// FLASH: func.func @main(
// FLASH: call @__transformer_flash_decode
// FLASH: func.func private @__transformer_flash_decode
// LINALG: func.func @main(%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<6x8xf32>, %{{.*}}: tensor<6x8xf32>) -> tensor<4x8xf32>
// LINALG-NOT: transformer.
// LINALG: linalg.
// LINALG-NOT: transformer.
// LINALG: return %{{.*}} : tensor<4x8xf32>

// RUN: transformer-run %s --emit=llvm-dialect | FileCheck %s --check-prefix=LLVMDIALECT
// LLVMDIALECT: llvm.func @main
// LLVMDIALECT-NOT: linalg.
// LLVMDIALECT-NOT: = transformer.

// RUN: transformer-run %s --emit=llvm-ir | FileCheck %s --check-prefix=LLVMIR
// LLVMIR: define {{.*}} @main(

// With q = 0 every score is 0, so each query averages the values of the keys
// that the causal mask (bottom-right aligned, Sq = 4, Sk = 6) leaves it:
// query i sees keys 0..i+2. Value row j holds j, so row i of the result is
// (i + 2) / 2 everywhere: 1, 1.5, 2, 2.5. This checks the mask, the softmax
// normalisation, the product with v and the printing of each row.
// RUN: transformer-run %s -O0 --input=4x8xf32=0 --input=6x8xf32=random --input="6x8xf32=[[0 0 0 0 0 0 0 0][1 1 1 1 1 1 1 1][2 2 2 2 2 2 2 2][3 3 3 3 3 3 3 3][4 4 4 4 4 4 4 4][5 5 5 5 5 5 5 5]]" | FileCheck %s --check-prefix=OUT
// RUN: transformer-run %s -O3 --input=4x8xf32=0 --input=6x8xf32=random --input="6x8xf32=[[0 0 0 0 0 0 0 0][1 1 1 1 1 1 1 1][2 2 2 2 2 2 2 2][3 3 3 3 3 3 3 3][4 4 4 4 4 4 4 4][5 5 5 5 5 5 5 5]]" | FileCheck %s --check-prefix=OUT
// RUN: transformer-run --input=4x8xf32=0 --input=6x8xf32=random --input="6x8xf32=[[0 0 0 0 0 0 0 0][1 1 1 1 1 1 1 1][2 2 2 2 2 2 2 2][3 3 3 3 3 3 3 3][4 4 4 4 4 4 4 4][5 5 5 5 5 5 5 5]]" < %s | FileCheck %s --check-prefix=OUT
// OUT-LABEL: EXEC @main
// OUT-NEXT: result[0]: 4x8xf32={{\[\[}}1 1 1 1 1 1 1 1][1.5 1.5 1.5 1.5 1.5 1.5 1.5 1.5][2 2 2 2 2 2 2 2][2.5 2.5 2.5 2.5 2.5 2.5 2.5 2.5]]{{$}}

// RUN: transformer-run %s --input=4x8xf32=0.5 --input=6x8xf32=random --input=6x8xf32=1 --benchmark-repetitions=3 --warmup=1 | FileCheck %s --check-prefix=BENCH
// BENCH: compile: {{[0-9.]+}} ms
// BENCH-NEXT: run @main: min {{[0-9.]+}} ms, median {{[0-9.]+}} ms, max {{[0-9.]+}} ms over 3 repetitions (1 warm-up)
// BENCH-NEXT: EXEC @main

// RUN: transformer-run --host-supports-jit | FileCheck %s --check-prefix=JIT
// JIT: true

func.func @main(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<*xf32> {
  %0 = transformer.attention %q, %k, %v {causal} : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x8xf32> -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
