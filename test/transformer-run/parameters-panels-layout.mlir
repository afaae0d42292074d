// REQUIRES: numpy
// Which weights of parameters-panels.mlir transformer-run binds in panels,
// for two named targets (kept out of the AVX2 rerun, which would name another).
// RUN: %python %test_lib/panel_params.py weights %t.safetensors
// RUN: %python %test_lib/panel_params.py input 1 %t.x1.npy
// Which weights: t.w (bound transposed), c.w and the layer function's
// l0.w and l1.w; odd.w only where 48 columns make whole panels (AVX2);
// never e.w, which an element-wise op also reads. Without --parameters
// nothing changes (the caller passes [k, n]).
// RUN: transformer-run %S/parameters-panels.mlir --parameters=%t.safetensors --input=@%t.x1.npy --emit=llvm-dialect --target-cpu=skylake-avx512 | FileCheck %s --check-prefix=AVX512
// AVX512: transformer.panel_parameters = {big = array<i64: 0, 32>, main = array<i64: 0, 32, 32, 0, 0, 32, 32>}
// RUN: transformer-run %S/parameters-panels.mlir --parameters=%t.safetensors --input=@%t.x1.npy --emit=llvm-dialect --target-cpu=haswell | FileCheck %s --check-prefix=AVX2
// AVX2: transformer.panel_parameters = {big = array<i64: 0, 16>, main = array<i64: 0, 16, 16, 16, 0, 16, 16>}
// RUN: transformer-run %S/parameters-panels.mlir --input=@%t.x1.npy --emit=llvm-dialect --target-cpu=skylake-avx512 | FileCheck %s --check-prefix=NONE
// NONE-NOT: transformer.panel_parameters


// The bf16 and f16 weights of parameters-panels-16bit.mlir: all of them but
// odd.w with AVX-512, all with AVX2.
// RUN: transformer-run %S/parameters-panels-16bit.mlir --parameters=%t.safetensors --input=@%t.x1.npy --emit=llvm-dialect --target-cpu=skylake-avx512 | FileCheck %s --check-prefix=HALF512
// HALF512: transformer.panel_parameters = {big = array<i64: 0, 32>, main = array<i64: 0, 32, 32, 0, 32, 32>}
// RUN: transformer-run %S/parameters-panels-16bit.mlir --parameters=%t.safetensors --input=@%t.x1.npy --emit=llvm-dialect --target-cpu=haswell | FileCheck %s --check-prefix=HALF2
// HALF2: transformer.panel_parameters = {big = array<i64: 0, 16>, main = array<i64: 0, 16, 16, 16, 16, 16>}
