// Each op family's strategy as a pipeline of its own (Strategies.h): the
// target's passes first, then the family's, on the IR of its stage.
// RUN: transformer-opt %s --split-input-file --transformer-cpu-attention-strategy="target-cpu=haswell threads=2" | FileCheck %s --check-prefix=ATT
// RUN: transformer-opt %s --split-input-file --transformer-cpu-contraction-strategy="target-cpu=haswell threads=2" | FileCheck %s --check-prefix=CON
// RUN: transformer-opt %s --split-input-file --transformer-cpu-row-strategy="target-cpu=skylake-avx512 threads=2" | FileCheck %s --check-prefix=ROW
// An unknown CPU is the pipeline's error, before any pass runs.
// RUN: not transformer-opt %s --split-input-file --transformer-cpu-row-strategy="target-cpu=nocpu" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: transformer-cpu-row-strategy: unknown target CPU 'nocpu'

// Attention, on tensors: the target is recorded, the op becomes a call of
// a flash kernel on the target's 8 lanes, built for 2 threads.
// ATT: module attributes {transformer.target = {{{.*}}cpu = "haswell"{{.*}}threads = 2
// ATT-LABEL: func.func @attention
// ATT-NOT: transformer.attention
// ATT: call @[[KERNEL:__transformer_flash_attention[_0-9]*]](
// ATT: func.func private @[[KERNEL]](
// ATT: vector.fma {{.*}} : vector<8xf32>
func.func @attention(%q: tensor<1x4x256x64xf32>, %k: tensor<1x4x256x64xf32>, %v: tensor<1x4x256x64xf32>) -> tensor<1x4x256x64xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<1x4x256x64xf32>, tensor<1x4x256x64xf32>, tensor<1x4x256x64xf32> -> tensor<1x4x256x64xf32>
  return %o : tensor<1x4x256x64xf32>
}

// -----

// A tagged contraction on buffers: the schedule with haswell's 6 x 16
// register tiles.
// CON-LABEL: func.func @contraction
// CON: scf.forall
// CON: scf.for {{.*}} iter_args({{.*}}) -> (vector<6x16xf32>) {
// CON-COUNT-6: vector.fma {{.*}} : vector<16xf32>
// CON-NOT: transformer.contraction
func.func @contraction(%a: memref<512x256xf32>, %b: memref<256x256xf32>, %c: memref<512x256xf32>) {
  linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : memref<512x256xf32>, memref<256x256xf32>) outs(%c : memref<512x256xf32>)
  return
}

// -----

// An element-wise op on buffers: 64-wide vector tiles along the row.
// ROW-LABEL: func.func @rows
// ROW: scf.for {{.*}} step %c64
// ROW: arith.addf {{.*}} : vector<64xf32>
// ROW-NOT: linalg.generic
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @rows(%x: memref<512x768xf32>, %y: memref<512x768xf32>, %z: memref<512x768xf32>) {
  linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %y : memref<512x768xf32>, memref<512x768xf32>) outs(%z : memref<512x768xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
