// The target description recorded on the module, and the tiles derived from
// it for named targets (the host's is what transformer-run --print-target
// shows).
// RUN: transformer-opt %s --transformer-cpu-select-target="cpu=skylake-avx512 threads=2" | FileCheck %s --check-prefix=SKX
// RUN: transformer-opt %s --transformer-cpu-select-target="cpu=haswell threads=1" | FileCheck %s --check-prefix=HSW
// RUN: transformer-opt %s --transformer-cpu-select-target="cpu=znver4 features=-avx512f" | FileCheck %s --check-prefix=NOAVX512
// RUN: transformer-opt %s --transformer-cpu-select-target | FileCheck %s --check-prefix=HOST
// RUN: transformer-run --print-target --target-cpu=skylake-avx512 | FileCheck %s --check-prefix=PRINT-SKX
// RUN: transformer-run --print-target --target-cpu=haswell | FileCheck %s --check-prefix=PRINT-HSW
// RUN: transformer-run --print-target | FileCheck %s --check-prefix=PRINT-HOST

// SKX: module attributes {transformer.target = {cores = {{[0-9]+}} : i64, cpu = "skylake-avx512", isa = ["avx512f", "avx2", "fma"], l1d = 32768 : i64, l2 = 1048576 : i64, l3 = 33554432 : i64, threads = 2 : i64, vector_bits = 512 : i64, vector_registers = 32 : i64}}
// HSW: module attributes {transformer.target = {cores = {{[0-9]+}} : i64, cpu = "haswell", isa = ["avx2", "fma"], {{.*}}, threads = 1 : i64, vector_bits = 256 : i64, vector_registers = 16 : i64}}
// NOAVX512: cpu = "znver4", isa = ["avx2", "fma"], {{.*}}, vector_bits = 256 : i64, vector_registers = 16 : i64
// HOST: module attributes {transformer.target = {cores = {{[0-9]+}} : i64, cpu = "{{[a-z0-9-]+}}", isa = [{{.*}}], l1d = {{[0-9]+}} : i64

// PRINT-SKX:      target cpu:       skylake-avx512
// PRINT-SKX-NEXT: isa:              avx512f, avx2, fma
// PRINT-SKX-NEXT: vector registers: 32 x 512 bits (16 f32 lanes)
// PRINT-SKX-NEXT: caches:           L1d 32 KiB, L2 1024 KiB, L3 32768 KiB
// PRINT-SKX:      contraction:      register tile 8 x 32, cache tile 256 x 256 x 128
// PRINT-HSW:      vector registers: 16 x 256 bits (8 f32 lanes)
// PRINT-HSW:      contraction:      register tile 6 x 16, cache tile 258 x 256 x 256
// PRINT-HOST:     target cpu: {{.*}} (host)
// PRINT-HOST:     contraction: register tile {{[0-9]+}} x {{[0-9]+}}

func.func @f() {
  return
}
