// RUN: transformer-opt %s --transformer-cpu-select-target=cpu=haswell --transformer-cpu-flash-attention=threads=1 --canonicalize --cse | FileCheck %s
// RUN: transformer-opt %s --transformer-to-llvm="threads=2" -o /dev/null

// Grouped-query attention takes the flash kernels with the keys and values
// as they are (no copy per query head): the kernels compute the group
// (query heads per key/value head) from the operands' collapsed batch dims
// and read key/value head bh / group for query head bh.

// CHECK-LABEL: func.func @gqa_prefill(
// CHECK-NOT: transformer.attention
// CHECK: bufferization.to_buffer %arg1 read_only : tensor<1x2x70x16xf32>
// CHECK: call @__transformer_flash_attention(
func.func @gqa_prefill(%q: tensor<1x8x70x16xf32>, %k: tensor<1x2x70x16xf32>, %v: tensor<1x2x70x16xf32>) -> tensor<1x8x70x16xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<1x8x70x16xf32>, tensor<1x2x70x16xf32>, tensor<1x2x70x16xf32> -> tensor<1x8x70x16xf32>
  return %o : tensor<1x8x70x16xf32>
}

// CHECK-LABEL: func.func @gqa_decode(
// CHECK-NOT: transformer.attention
// CHECK: bufferization.to_buffer %arg1 read_only : tensor<2x2x130x32xf32>
// CHECK: call @__transformer_flash_decode(
func.func @gqa_decode(%q: tensor<2x4x1x32xf32>, %k: tensor<2x2x130x32xf32>, %v: tensor<2x2x130x32xf32>) -> tensor<2x4x1x32xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<2x4x1x32xf32>, tensor<2x2x130x32xf32>, tensor<2x2x130x32xf32> -> tensor<2x4x1x32xf32>
  return %o : tensor<2x4x1x32xf32>
}

// CHECK-LABEL: func.func private @__transformer_flash_attention(
// CHECK-DAG: %[[BH:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[KVH:.*]] = memref.dim %arg1, %c0
// CHECK: %[[KV1:.*]] = arith.maxsi %[[KVH]], %c1
// CHECK: %[[GROUP:.*]] = arith.divui %[[BH]], %[[KV1]]
// CHECK: %[[HEAD:.*]] = arith.divui %{{.*}}, %{{.*}}
// CHECK: %[[KVHEAD:.*]] = arith.divui %[[HEAD]], %[[GROUP]]
// CHECK: memref.load %arg1[%[[KVHEAD]],
// CHECK: memref.load %arg2[%[[KVHEAD]],

// The decoding kernel's tasks are sets of the query heads that share a
// key/value head (at most 16 queries in all), so that each block of keys
// is read once for the whole set: task t reads key/value head
// t / (sets per group).
// CHECK-LABEL: func.func private @__transformer_flash_decode(
// CHECK-DAG: %[[BH:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[SQ:.*]] = memref.dim %arg0, %c1
// CHECK-DAG: %[[KVH:.*]] = memref.dim %arg1, %c0
// CHECK: %[[KV1:.*]] = arith.maxsi %[[KVH]], %c1
// CHECK: %[[GROUP:.*]] = arith.divui %[[BH]], %[[KV1]]
// CHECK: %[[SQ1:.*]] = arith.maxsi %[[SQ]], %c1
// CHECK: %[[FIT:.*]] = arith.divui %c16, %[[SQ1]]
// CHECK: %[[FEW:.*]] = arith.minsi %[[GROUP]], %[[FIT]]
// CHECK: %[[HEADS:.*]] = arith.maxsi %[[FEW]], %c1
// CHECK: %[[TASKS:.*]] = arith.muli %[[KVH]], %[[SETS:.*]] : index
// CHECK: scf.forall (%[[T:.*]]) in (%[[TASKS]])
// CHECK: %[[KVHEAD:.*]] = arith.divui %[[T]], %[[SETS]]
// CHECK: %[[SET:.*]] = arith.remui %[[T]], %[[SETS]]
// CHECK: arith.muli %[[SET]], %[[HEADS]]
// CHECK: vector.load %arg1[%[[KVHEAD]],
