// RUN: transformer-opt %s --transformer-cpu-select-target=cpu=skylake-avx512 --transformer-mask-sparsity --transformer-cpu-flash-attention --canonicalize --cse | FileCheck %s
// RUN: transformer-opt %s --transformer-cpu-select-target=cpu=haswell --transformer-mask-sparsity --transformer-cpu-flash-attention --canonicalize --cse | FileCheck %s --check-prefix=AVX2
// RUN: transformer-opt %s --transformer-to-llvm -o /dev/null

// The flash lowering replaces the attention by a call of a kernel on the
// operands' buffers (batch dims collapsed) writing a fresh result buffer.
// CHECK-LABEL: func.func @causal(
// CHECK-NOT: transformer.attention
// CHECK: %[[Q:.*]] = bufferization.to_buffer %arg0 read_only
// CHECK: memref.collapse_shape %[[Q]] {{\[\[}}0, 1], [2], [3]]
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x4x256x64xf32>
// CHECK: call @[[$CAUSAL:__transformer_flash_attention[_0-9]*]](
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
func.func @causal(%q: tensor<1x4x256x64xf32>, %k: tensor<1x4x256x64xf32>, %v: tensor<1x4x256x64xf32>) -> tensor<1x4x256x64xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<1x4x256x64xf32>, tensor<1x4x256x64xf32>, tensor<1x4x256x64xf32> -> tensor<1x4x256x64xf32>
  return %o : tensor<1x4x256x64xf32>
}

// A constant block-diagonal mask (blocks inserted into -inf): the sparsity pass classifies its 64 x 64
// blocks (V on the diagonal, M elsewhere) and the kernel gets the table.
// CHECK-LABEL: func.func @block_diagonal(
// CHECK: call @[[$BLOCKDIAG:__transformer_flash_attention[_0-9]*]](
func.func @block_diagonal(%q: tensor<128x16xf32>, %k: tensor<128x16xf32>, %v: tensor<128x16xf32>) -> tensor<128x16xf32> {
  %ninf = arith.constant dense<0xFF800000> : tensor<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %m0 = tensor.insert_slice %zero into %ninf[0, 0] [64, 64] [1, 1] : tensor<64x64xf32> into tensor<128x128xf32>
  %m = tensor.insert_slice %zero into %m0[64, 64] [64, 64] [1, 1] : tensor<64x64xf32> into tensor<128x128xf32>
  %o = transformer.attention %q, %k, %v mask(%m : tensor<128x128xf32>) : tensor<128x16xf32>, tensor<128x16xf32>, tensor<128x16xf32> -> tensor<128x16xf32>
  return %o : tensor<128x16xf32>
}

// The causal kernel: tasks over (batch*heads, query block), taken by the
// threads of a parallel region that forks only for 2^20 flops or more; the
// key-block loop ends at the last block the query block can see, ceil((q0 +
// nq + Sk - Sq) / 64); a block is masked only when it crosses the diagonal
// (its last key is after the first query's position), by comparing key and
// query positions lane by lane.
// CHECK: func.func private @[[$CAUSAL]](
// CHECK: %[[OFF:.*]] = arith.subi %[[SK:.*]], %[[SQ:.*]] : index
// CHECK: omp.parallel if(%{{.*}}) num_threads(%{{.*}} : i32) {
// CHECK: %[[END:.*]] = arith.addi %[[Q0END:.*]], %[[OFF]] : index
// CHECK: %[[HI:.*]] = arith.minsi %[[SK]], %[[END]] : index
// CHECK: %[[HIBLOCK:.*]] = arith.ceildivsi %{{.*}}, %c64 : index
// CHECK: scf.for %[[KB:.*]] = %c0 to %{{.*}} step %c1 iter_args(
// CHECK: %[[LASTKEY:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[VISIBLE:.*]] = arith.cmpi sle, %[[LASTKEY]], %{{.*}} : index
// CHECK: arith.select %[[VISIBLE]], %c1, %c2 : index
// Visible blocks: no compare of positions.
// CHECK: scf.if
// CHECK-NOT: vector<16xi32>
// CHECK: vector.fma
// CHECK: } else {
// Blocks on the diagonal: -inf where key > query.
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : vector<16xi32>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<16xi1>, vector<16xf32>

// On AVX2 the kernels compute on 8 lanes (a vector<16xf32> would take two
// ymm registers), and the score tile is 2 keys x 4 vectors of queries: per
// step of the head dim, 4 loads of Q^T, 2 broadcast keys, 8 FMAs.
// AVX2-NOT: vector<16xf32>
// AVX2: func.func private @{{__transformer_flash_attention[_0-9]*}}(
// AVX2: scf.for %{{.*}} step %c2 iter_args(
// AVX2-NEXT: scf.for %{{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// AVX2-COUNT-4: vector.load %{{.*}} : memref<?x32xf32>, vector<8xf32>
// AVX2: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// AVX2-COUNT-4: vector.fma %{{.*}} : vector<8xf32>
// AVX2: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// AVX2-COUNT-4: vector.fma %{{.*}} : vector<8xf32>
// AVX2: arith.cmpi sgt, %{{.*}}, %{{.*}} : vector<8xi32>

// The block-diagonal kernel reads its class table; class 0 (M) yields the
// running max and sum unchanged: no loads, no FLOPs.
// CHECK: func.func private @[[$BLOCKDIAG]](
// CHECK: %[[TABLE:.*]] = arith.constant dense<[1, 0, 0, 1]> : tensor<4xi8>
// CHECK: scf.for %{{.*}} iter_args(%[[M0:[^ ]*]] = {{.*}}, %[[M1:[^ ]*]] = {{.*}}, %[[M2:[^ ]*]] = {{.*}}, %[[M3:[^ ]*]] = {{.*}}, %[[L0:[^ ]*]] = {{.*}}, %[[L1:[^ ]*]] = {{.*}}, %[[L2:[^ ]*]] = {{.*}}, %[[L3:[^ ]*]] = {{.*}})
// CHECK: tensor.extract %[[TABLE]]
// CHECK: scf.if
// CHECK-NEXT: scf.yield %[[M0]], %[[M1]], %[[M2]], %[[M3]], %[[L0]], %[[L1]], %[[L2]], %[[L3]]
