// REQUIRES: numpy
// A Llama-family MLP with its weights bound in panels: the gate and up
// projections are one kernel that computes both in the same cache tiles
// (the up projection into a tile-sized temporary) with silu(gate) * up as
// their epilogue. The results match numpy for one row (the row forms), a
// group of rows, and rows that fill two cache tiles and part of a third
// (300: a last tile of 44 rows, the temporary used in part), on one and two
// threads, on the AVX-512 target and the AVX2 one.
// RUN: %python %test_lib/gated_mlp.py weights %t.safetensors
// RUN: %python %test_lib/gated_mlp.py input 1 %t.x1.npy
// RUN: %python %test_lib/gated_mlp.py input 20 %t.x20.npy
// RUN: %python %test_lib/gated_mlp.py input 300 %t.x300.npy

// The kernel: both projections, one scf.forall, the epilogue.
// RUN: transformer-opt %s --transformer-to-llvm="panel-parameters=true target-cpu=skylake-avx512 threads=2" --mlir-print-ir-after=transformer-cpu-panel-contractions --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=KERNEL
// KERNEL-LABEL: func.func private @main_kernel(
// KERNEL-SAME: tensor<?x96xf32>, %{{.*}}: tensor<5x96x32xf32>, %{{.*}}: tensor<5x96x32xf32>
// KERNEL: scf.forall
// KERNEL: tensor.empty() : tensor<{{[0-9]+}}x160xf32>
// KERNEL-COUNT-2: "mnk_panel"
// KERNEL: math.exp
// KERNEL: scf.forall.in_parallel

// RUN: transformer-run %s --parameters=%t.safetensors --input=@%t.x1.npy --output=@%t.y1.npy
// RUN: %python %test_lib/gated_mlp.py check %t.x1.npy %t.y1.npy | FileCheck %s --check-prefix=ROWS1
// ROWS1: PASS 1 rows
// RUN: transformer-run %s --parameters=%t.safetensors --input=@%t.x20.npy --output=@%t.y20.npy
// RUN: %python %test_lib/gated_mlp.py check %t.x20.npy %t.y20.npy | FileCheck %s --check-prefix=ROWS20
// ROWS20: PASS 20 rows
// RUN: transformer-run %s --parameters=%t.safetensors --input=@%t.x300.npy --output=@%t.y300.npy --threads=2
// RUN: %python %test_lib/gated_mlp.py check %t.x300.npy %t.y300.npy | FileCheck %s --check-prefix=ROWS300
// RUN: transformer-run %s --parameters=%t.safetensors --input=@%t.x300.npy --output=@%t.z300.npy --threads=1
// RUN: %python %test_lib/gated_mlp.py check %t.x300.npy %t.z300.npy | FileCheck %s --check-prefix=ROWS300
// RUN: transformer-run %s --parameters=%t.safetensors --input=@%t.x300.npy --output=@%t.a300.npy --target-features=-avx512f
// RUN: %python %test_lib/gated_mlp.py check %t.x300.npy %t.a300.npy | FileCheck %s --check-prefix=ROWS300
// ROWS300: PASS 300 rows

// The same MLP with its weights quantized to Q8_0 blocks when bound: each
// cache tile dequantizes both projections' k blocks into panels of its own,
// and computes both.
// RUN: transformer-opt %s --transformer-to-llvm="target-cpu=skylake-avx512 threads=2" --mlir-print-ir-after=transformer-cpu-panel-contractions --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=Q8KERNEL
// Q8KERNEL-LABEL: func.func private @q8_0_kernel(
// Q8KERNEL-SAME: tensor<160x3x34xi8>
// Q8KERNEL: scf.forall
// Q8KERNEL: tensor.empty() : tensor<{{[0-9]+}}x160xf32>
// Q8KERNEL-COUNT-2: "mnk_panel"
// Q8KERNEL: math.exp
// Q8KERNEL: scf.forall.in_parallel
// RUN: transformer-run %s -e q8_0 --parameters=%t.safetensors --input=@%t.x300.npy --output=@%t.q300.npy --threads=2
// RUN: %python %test_lib/gated_mlp.py check-q8_0 %t.x300.npy %t.q300.npy | FileCheck %s --check-prefix=Q8ROWS300
// Q8ROWS300: PASS 300 rows

func.func @main(%x: tensor<?x96xf32>,
                %gate: tensor<96x160xf32> {transformer.parameter = "gate.w", transformer.transposed},
                %up: tensor<96x160xf32> {transformer.parameter = "up.w", transformer.transposed},
                %down: tensor<160x96xf32> {transformer.parameter = "down.w", transformer.transposed})
    -> tensor<?x96xf32> {
  %g = transformer.matmul %x, %gate : tensor<?x96xf32>, tensor<96x160xf32> -> tensor<?x160xf32>
  %u = transformer.matmul %x, %up : tensor<?x96xf32>, tensor<96x160xf32> -> tensor<?x160xf32>
  %s = transformer.silu %g : tensor<?x160xf32> -> tensor<?x160xf32>
  %m = transformer.mul %s, %u : tensor<?x160xf32>, tensor<?x160xf32> -> tensor<?x160xf32>
  %y = transformer.matmul %m, %down : tensor<?x160xf32>, tensor<160x96xf32> -> tensor<?x96xf32>
  %r = transformer.add %y, %x : tensor<?x96xf32>, tensor<?x96xf32> -> tensor<?x96xf32>
  return %r : tensor<?x96xf32>
}

func.func @q8_0(%x: tensor<?x96xf32>,
                %gate: tensor<160x3x34xi8> {transformer.parameter = "gate.w", transformer.block_format = "q8_0"},
                %up: tensor<160x3x34xi8> {transformer.parameter = "up.w", transformer.block_format = "q8_0"},
                %down: tensor<96x5x34xi8> {transformer.parameter = "down.w", transformer.block_format = "q8_0"})
    -> tensor<?x96xf32> {
  %gw = transformer.dequantize q8_0 %gate : tensor<160x3x34xi8> -> tensor<160x96xf32>
  %uw = transformer.dequantize q8_0 %up : tensor<160x3x34xi8> -> tensor<160x96xf32>
  %dw = transformer.dequantize q8_0 %down : tensor<96x5x34xi8> -> tensor<96x160xf32>
  %g = transformer.matmul %x, %gw {transpose_b} : tensor<?x96xf32>, tensor<160x96xf32> -> tensor<?x160xf32>
  %u = transformer.matmul %x, %uw {transpose_b} : tensor<?x96xf32>, tensor<160x96xf32> -> tensor<?x160xf32>
  %s = transformer.silu %g : tensor<?x160xf32> -> tensor<?x160xf32>
  %m = transformer.mul %s, %u : tensor<?x160xf32>, tensor<?x160xf32> -> tensor<?x160xf32>
  %y = transformer.matmul %m, %dw {transpose_b} : tensor<?x160xf32>, tensor<96x160xf32> -> tensor<?x96xf32>
  %r = transformer.add %y, %x : tensor<?x96xf32>, tensor<?x96xf32> -> tensor<?x96xf32>
  return %r : tensor<?x96xf32>
}
