// RUN: transformer-opt %s --pass-pipeline='builtin.module(transformer-cpu-select-target{cpu=haswell threads=2},transformer-cpu-cache-constant-weights)' --split-input-file | FileCheck %s
// RUN: transformer-opt %s --pass-pipeline='builtin.module(transformer-cpu-select-target{cpu=skylake-avx512 threads=2},transformer-cpu-cache-constant-weights)' --split-input-file | FileCheck %s --check-prefix=AVX512

// A constant weight read only by plain contractions is copied in panels of
// the register tile's width (AVX2: 16 columns, AVX-512: 32), [n / r, k, r],
// by a transpose of the weight viewed as [n / r, r, k]; the contraction
// reads B as (n floordiv r, k, n mod r).
// CHECK-DAG: #[[$PANEL:.*]] = affine_map<(d0, d1, d2) -> (d1 floordiv 16, d2, d1 mod 16)>
// CHECK-DAG: memref.global "private" @[[$CACHE:__transformer_weight_cache[_0-9]*]] : memref<6x64x16xf32> = uninitialized {alignment = 64 : i64}
// CHECK-LABEL: func.func @panels(
// CHECK-SAME: %[[X:[^:]*]]: tensor<128x64xf32>, %[[W:[^:]*]]: tensor<96x64xf32> {transformer.constant}, %[[ACC:[^:]*]]: tensor<128x96xf32>
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[W]] read_only
// CHECK: %[[VIEW:.*]] = memref.expand_shape %[[IN]] {{\[}}[0, 1], [2]] output_shape [6, 16, 64] : memref<96x64xf32> into memref<6x16x64xf32>
// CHECK: %[[COPY:.*]] = memref.get_global @[[$CACHE]] : memref<6x64x16xf32>
// CHECK: scf.if
// CHECK:   func.call @[[$TRANSPOSE:__transformer_weight_transpose[_0-9]*]](%[[VIEW]], %[[COPY]]) : (memref<6x16x64xf32>, memref<6x64x16xf32>) -> ()
// CHECK: %[[P:.*]] = bufferization.to_tensor %[[COPY]] restrict : memref<6x64x16xf32> to tensor<6x64x16xf32>
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[$PANEL]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[P]] : tensor<128x64xf32>, tensor<6x64x16xf32>) outs(%[[ACC]] : tensor<128x96xf32>) attrs = {transformer.contraction = "mnk"}
// CHECK:   arith.mulf
// CHECK:   arith.addf
// CHECK: return %[[Y]]
// CHECK: func.func private @[[$TRANSPOSE]](%[[A:.*]]: memref<6x16x64xf32>, %[[B:.*]]: memref<6x64x16xf32>)
// CHECK-NEXT: linalg.transpose ins(%[[A]] : memref<6x16x64xf32>) outs(%[[B]] : memref<6x64x16xf32>) permutation = [0, 2, 1]  {transformer.contraction = "btranspose"}
// AVX512: memref.global "private" @{{.*}} : memref<3x64x32xf32>
// AVX512: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}]{{.*}} ins(%{{.*}}, %{{.*}} : tensor<128x64xf32>, tensor<3x64x32xf32>)
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @panels(%x: tensor<128x64xf32>, %w: tensor<96x64xf32> {transformer.constant}, %acc: tensor<128x96xf32>) -> tensor<128x96xf32> {
  %e = tensor.empty() : tensor<64x96xf32>
  %t = linalg.transpose ins(%w : tensor<96x64xf32>) outs(%e : tensor<64x96xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  %y = linalg.contract indexing_maps = [#a, #b, #c] {transformer.contraction = "mnk"} ins(%x, %t : tensor<128x64xf32>, tensor<64x96xf32>) outs(%acc : tensor<128x96xf32>) -> tensor<128x96xf32>
  return %y : tensor<128x96xf32>
}

// -----

// A plain k x n copy where n is not a whole number of panels (40 columns),
// or where the copy has another reader than a contraction's B.
// CHECK-LABEL: func.func @odd_columns(
// CHECK: memref.get_global @{{.*}} : memref<64x40xf32>
// CHECK: linalg.contract {{.*}} ins(%{{.*}}, %{{.*}} : tensor<128x64xf32>, tensor<64x40xf32>)
// CHECK-LABEL: func.func @other_reader(
// CHECK: %[[T:.*]] = bufferization.to_tensor %{{.*}} : memref<64x96xf32> to tensor<64x96xf32>
// CHECK: %[[Y:.*]] = linalg.contract {{.*}} ins(%{{.*}}, %[[T]] : tensor<128x64xf32>, tensor<64x96xf32>)
// CHECK: return %[[Y]], %[[T]]
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @odd_columns(%x: tensor<128x64xf32>, %w: tensor<40x64xf32> {transformer.constant}, %acc: tensor<128x40xf32>) -> tensor<128x40xf32> {
  %e = tensor.empty() : tensor<64x40xf32>
  %t = linalg.transpose ins(%w : tensor<40x64xf32>) outs(%e : tensor<64x40xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  %y = linalg.contract indexing_maps = [#a, #b, #c] {transformer.contraction = "mnk"} ins(%x, %t : tensor<128x64xf32>, tensor<64x40xf32>) outs(%acc : tensor<128x40xf32>) -> tensor<128x40xf32>
  return %y : tensor<128x40xf32>
}
func.func @other_reader(%x: tensor<128x64xf32>, %w: tensor<96x64xf32> {transformer.constant}, %acc: tensor<128x96xf32>) -> (tensor<128x96xf32>, tensor<64x96xf32>) {
  %e = tensor.empty() : tensor<64x96xf32>
  %t = linalg.transpose ins(%w : tensor<96x64xf32>) outs(%e : tensor<64x96xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  %y = linalg.contract indexing_maps = [#a, #b, #c] {transformer.contraction = "mnk"} ins(%x, %t : tensor<128x64xf32>, tensor<64x96xf32>) outs(%acc : tensor<128x96xf32>) -> tensor<128x96xf32>
  return %y, %t : tensor<128x96xf32>, tensor<64x96xf32>
}
