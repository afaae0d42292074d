// REQUIRES: numpy
// bf16 and f16 weights bound by name are laid out in panels like f32 ones
// (--transformer-cpu-panel-parameters): a 16-bit panel's row is one cache
// line, and the kernels widen each vector of it as they read it. The f32
// file is converted to each weight's format when it is bound (then
// transposed, or copied into panels). The results match numpy on the
// rounded weights for one row (the row form), a group of rows, and many rows
// (the cache tiles), on the AVX-512 target (panels of 32) and the AVX2 one
// (16). parameters-panels-layout.mlir checks which weights are bound so.
// RUN: %python %test_lib/panel_params.py weights %t.safetensors
// RUN: %python %test_lib/panel_params.py input 1 %t.x1.npy
// RUN: %python %test_lib/panel_params.py input 5 %t.x5.npy
// RUN: %python %test_lib/panel_params.py input 70 %t.x70.npy

// RUN: transformer-run %s --parameters=%t.safetensors --input=@%t.x1.npy --output=@%t.y1.npy --output=@%t.z1.npy --output=@%t.h1.npy
// RUN: %python %test_lib/panel_params.py check-16bit %t.x1.npy %t.y1.npy %t.z1.npy %t.h1.npy | FileCheck %s --check-prefix=ROWS1
// ROWS1: PASS 1 rows
// RUN: transformer-run %s --parameters=%t.safetensors --input=@%t.x5.npy --output=@%t.y5.npy --output=@%t.z5.npy --output=@%t.h5.npy --threads=1
// RUN: %python %test_lib/panel_params.py check-16bit %t.x5.npy %t.y5.npy %t.z5.npy %t.h5.npy | FileCheck %s --check-prefix=ROWS5
// ROWS5: PASS 5 rows
// RUN: transformer-run %s --parameters=%t.safetensors --input=@%t.x70.npy --output=@%t.y70.npy --output=@%t.z70.npy --output=@%t.h70.npy
// RUN: %python %test_lib/panel_params.py check-16bit %t.x70.npy %t.y70.npy %t.z70.npy %t.h70.npy | FileCheck %s --check-prefix=ROWS70
// ROWS70: PASS 70 rows
// RUN: transformer-run %s --parameters=%t.safetensors --input=@%t.x70.npy --output=@%t.a70.npy --output=@%t.b70.npy --output=@%t.c70.npy --target-features=-avx512f
// RUN: %python %test_lib/panel_params.py check-16bit %t.x70.npy %t.a70.npy %t.b70.npy %t.c70.npy | FileCheck %s --check-prefix=ROWS70
// RUN: transformer-run %s --parameters=%t.safetensors --input=@%t.x1.npy --output=@%t.a1.npy --output=@%t.b1.npy --output=@%t.c1.npy --target-features=-avx512f
// RUN: %python %test_lib/panel_params.py check-16bit %t.x1.npy %t.a1.npy %t.b1.npy %t.c1.npy | FileCheck %s --check-prefix=ROWS1
// K of 300 (k blocks and a rest) by 704 columns (cache tiles of 128 and a
// last one of 64), 1 and 130 rows.
// RUN: %python %test_lib/panel_params.py input-big 130 %t.big130.npy
// RUN: transformer-run %s -e big --parameters=%t.safetensors --input=@%t.big130.npy --output=@%t.bo130.npy
// RUN: %python %test_lib/panel_params.py check-big-16bit %t.big130.npy %t.bo130.npy | FileCheck %s --check-prefix=BIG130
// BIG130: PASS big 130 rows
// RUN: %python %test_lib/panel_params.py input-big 1 %t.big1.npy
// RUN: transformer-run %s -e big --parameters=%t.safetensors --input=@%t.big1.npy --output=@%t.bo1.npy
// RUN: %python %test_lib/panel_params.py check-big-16bit %t.big1.npy %t.bo1.npy | FileCheck %s --check-prefix=BIG1
// BIG1: PASS big 1 rows

func.func private @layer(%x: tensor<?x64xf32>, %w: tensor<64x64xbf16>) -> tensor<?x64xf32> {
  %y = transformer.matmul %x, %w : tensor<?x64xf32>, tensor<64x64xbf16> -> tensor<?x64xf32>
  %s = transformer.silu %y : tensor<?x64xf32> -> tensor<?x64xf32>
  return %s : tensor<?x64xf32>
}

func.func @main(%x: tensor<?x64xf32>,
                %t: tensor<64x96xbf16> {transformer.parameter = "t.w", transformer.transposed},
                %c: tensor<64x96xf16> {transformer.parameter = "c.w"},
                %o: tensor<64x48xbf16> {transformer.parameter = "odd.w"},
                %l0: tensor<64x64xbf16> {transformer.parameter = "l0.w"},
                %l1: tensor<64x64xbf16> {transformer.parameter = "l1.w"})
    -> (tensor<?x96xf32>, tensor<?x48xf32>, tensor<?x64xf32>) {
  %a = transformer.matmul %x, %t : tensor<?x64xf32>, tensor<64x96xbf16> -> tensor<?x96xf32>
  %b = transformer.matmul %x, %c : tensor<?x64xf32>, tensor<64x96xf16> -> tensor<?x96xf32>
  %y = transformer.add %a, %b : tensor<?x96xf32>, tensor<?x96xf32> -> tensor<?x96xf32>
  %z = transformer.matmul %x, %o : tensor<?x64xf32>, tensor<64x48xbf16> -> tensor<?x48xf32>
  %h0 = func.call @layer(%x, %l0) : (tensor<?x64xf32>, tensor<64x64xbf16>) -> tensor<?x64xf32>
  %h1 = func.call @layer(%h0, %l1) : (tensor<?x64xf32>, tensor<64x64xbf16>) -> tensor<?x64xf32>
  return %y, %z, %h1 : tensor<?x96xf32>, tensor<?x48xf32>, tensor<?x64xf32>
}

func.func @big(%x: tensor<?x300xf32>, %w: tensor<300x704xbf16> {transformer.parameter = "big.w"}) -> tensor<?x704xf32> {
  %y = transformer.matmul %x, %w : tensor<?x300xf32>, tensor<300x704xbf16> -> tensor<?x704xf32>
  return %y : tensor<?x704xf32>
}
