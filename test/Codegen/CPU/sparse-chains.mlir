// RUN: transformer-opt %s --transformer-cpu-sparse-chains | FileCheck %s
// RUN: transformer-opt %s --pass-pipeline="builtin.module(transformer-to-linalg-pipeline{opt-level=2})" | FileCheck %s --check-prefix=PIPE
// RUN: transformer-opt %s --pass-pipeline="builtin.module(transformer-to-linalg-pipeline{opt-level=1})" | FileCheck %s --check-prefix=O1

// masked_softmax and matmul ops that carry a transformer.mask_blocks table
// are lowered block by block: per block of 64 rows, the max/exp/sum and the
// contraction cover only the key blocks that are not M.

// A causal band (Sq = Sk = 200): the three full blocks of rows are the
// iterations of an scf.forall that reads, from a constant table, the block's
// first row and its key ranges (lo, vlo, vhi, hi), in the order first, last,
// second, ... (balanced chunks), and contracts over keys [lo, hi) only; the
// last block (8 rows) is unrolled with its static range.
// CHECK-LABEL: func.func @matmul_causal
// CHECK: %[[OUT:.*]] = linalg.fill {{.*}} -> tensor<2x200x16xf32>
// CHECK: %[[RANGES:.*]] = arith.constant dense<{{\[}}[0, 0, 0, 0, 64], [128, 0, 0, 128, 192], [64, 0, 0, 64, 128]]> : tensor<3x5xi64>
// CHECK: scf.forall (%[[I:.*]]) in (3) shared_outs(%[[ACC:.*]] = %[[OUT]])
// CHECK:   %[[R064:.*]] = tensor.extract %[[RANGES]][%[[I]], %{{.*}}]
// CHECK:   %[[R0:.*]] = arith.index_cast %[[R064]]
// CHECK:   %[[LO64:.*]] = tensor.extract %[[RANGES]][%[[I]], %{{.*}}]
// CHECK:   %[[LO:.*]] = arith.index_cast %[[LO64]]
// CHECK:   %[[K:.*]] = arith.subi %{{.*}}, %[[LO]]
// CHECK:   %[[ROWS:.*]] = tensor.extract_slice %[[ACC]][0, %[[R0]], 0] [2, 64, 16]
// CHECK:   %[[A:.*]] = tensor.extract_slice %arg0[0, %[[R0]], %[[LO]]] [2, 64, %[[K]]]
// CHECK:   %[[B:.*]] = tensor.extract_slice %arg1[0, %[[LO]], 0] [2, %[[K]], 16]
// CHECK:   linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<2x64x?xf32>, tensor<2x?x16xf32>)
// CHECK:   tensor.parallel_insert_slice %{{.*}} into %[[ACC]][0, %[[R0]], 0] [2, 64, 16]
// CHECK: tensor.extract_slice %arg0[0, 192, 0] [2, 8, 200]
// CHECK: tensor.extract_slice %arg1[0, 0, 0] [2, 200, 16]
// CHECK: linalg.batch_matmul
// CHECK-NOT: linalg.batch_matmul
// CHECK: return
func.func @matmul_causal(%p: tensor<2x200x200xf32>, %v: tensor<2x200x16xf32>) -> tensor<2x200x16xf32> {
  %o = transformer.matmul %p, %v {transformer.mask_blocks = {block = array<i64: 64, 64>, rows = ["PMMM", "VPMM", "VVPM", "VVVP"]}} : tensor<2x200x200xf32>, tensor<2x200x16xf32> -> tensor<2x200x16xf32>
  return %o : tensor<2x200x16xf32>
}

// A window band: the range of each block of rows starts past its masked
// blocks (keys [64, 256) for the last one); its masked / visible / masked
// parts are (lo, vlo), (vlo, vhi), (vhi, hi).
// CHECK-LABEL: func.func @matmul_window
// CHECK: arith.constant dense<{{\[}}[0, 0, 0, 0, 64], [192, 64, 128, 192, 256], [64, 0, 0, 64, 128], [128, 0, 64, 128, 192]]> : tensor<4x5xi64>
// CHECK: scf.forall
// CHECK:   linalg.matmul
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @matmul_window(%p: tensor<256x256xf32>, %v: tensor<256x32xf32>) -> tensor<256x32xf32> {
  %o = transformer.matmul %p, %v {transformer.mask_blocks = {block = array<i64: 64, 64>, rows = ["PMMM", "VPMM", "PVPM", "MPVP"]}} : tensor<256x256xf32>, tensor<256x32xf32> -> tensor<256x32xf32>
  return %o : tensor<256x32xf32>
}

// A general table: a row block with a gap contracts over each run of
// non-M blocks (the second block, keys [64, 128), is never read); a
// transposed rhs is sliced along its last dim; a row block that is all M
// has no contraction (its rows stay the zeros of the fill).
// CHECK-LABEL: func.func @matmul_gaps
// CHECK: tensor.extract_slice %arg0[0, 0] [64, 64]
// CHECK: tensor.extract_slice %arg1[0, 0] [16, 64]
// CHECK: linalg.matmul
// CHECK: tensor.extract_slice %arg0[0, 128] [64, 22]
// CHECK: tensor.extract_slice %arg1[0, 128] [16, 22]
// CHECK: linalg.matmul
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @matmul_gaps(%p: tensor<100x150xf32>, %v: tensor<16x150xf32>) -> tensor<100x16xf32> {
  %o = transformer.matmul %p, %v {transpose_b, transformer.mask_blocks = {block = array<i64: 64, 64>, rows = ["VMP", "MMM"]}} : tensor<100x150xf32>, tensor<16x150xf32> -> tensor<100x16xf32>
  return %o : tensor<100x16xf32>
}

// masked_softmax in a band: per block of rows, the masked prefix and
// suffix add the mask, the visible middle does not; one exp per part.
// CHECK-LABEL: func.func @softmax_band
// CHECK: %[[OUT:.*]] = linalg.fill {{.*}} -> tensor<192x192xf32>
// CHECK: arith.constant dense<{{\[}}[0, 0, 0, 0, 64], [128, 0, 64, 128, 192], [64, 0, 0, 64, 128]]> : tensor<3x5xi64>
// CHECK: scf.forall
// CHECK-DAG: %[[X0:.*]] = tensor.extract_slice %arg0[%[[R0:.*]], %[[LO:.*]]] [64, %{{.*}}]
// CHECK-DAG: %[[M0:.*]] = tensor.extract_slice %arg1[%[[R0]], %[[LO]]] [64, %{{.*}}]
// CHECK-DAG: %[[X1:.*]] = tensor.extract_slice %arg0[%[[R0]], %[[VLO:.*]]] [64, %{{.*}}]
// CHECK-DAG: %[[X2:.*]] = tensor.extract_slice %arg0[%[[R0]], %[[VHI:.*]]] [64, %{{.*}}]
// CHECK-DAG: %[[M2:.*]] = tensor.extract_slice %arg1[%[[R0]], %[[VHI]]] [64, %{{.*}}]
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]} ins(%[[X0]], %[[M0]] :
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]} ins(%[[X1]] :
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]} ins(%[[X2]], %[[M2]] :
// CHECK-COUNT-3: math.exp
// CHECK-NOT: math.exp
// CHECK: return
func.func @softmax_band(%x: tensor<192x192xf32>, %m: tensor<192x192xf32>) -> tensor<192x192xf32> {
  %p = transformer.masked_softmax %x, %m {transformer.mask_blocks = {block = array<i64: 64, 64>, rows = ["PMM", "VPM", "PVP"]}} : tensor<192x192xf32>, tensor<192x192xf32> -> tensor<192x192xf32>
  return %p : tensor<192x192xf32>
}

// masked_softmax with a table that is not a band (unrolled blocks of rows):
// a V run reads no mask, a P run adds it, the M block (keys [64, 128)) and
// the fully masked second block of rows compute no exp: two exps in all.
// CHECK-LABEL: func.func @softmax_gaps
// CHECK: %[[OUT:.*]] = linalg.fill {{.*}} -> tensor<128x150xf32>
// CHECK-NOT: scf.forall
// CHECK-DAG: %[[XV:.*]] = tensor.extract_slice %arg0[0, 0] [64, 64]
// CHECK-DAG: %[[XP:.*]] = tensor.extract_slice %arg0[0, 128] [64, 22]
// CHECK-DAG: %[[MP:.*]] = tensor.extract_slice %arg1[0, 128] [64, 22]
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]} ins(%[[XV]] : tensor<64x64xf32>)
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]} ins(%[[XP]], %[[MP]] : tensor<64x22xf32>, tensor<64x22xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: math.exp
// CHECK-NOT: math.exp
// CHECK: tensor.insert_slice {{.*}} into {{.*}}[0, 0] [64, 64]
// CHECK: tensor.insert_slice {{.*}} into {{.*}}[0, 128] [64, 22]
// CHECK-NOT: tensor.insert_slice
// CHECK: return
func.func @softmax_gaps(%x: tensor<128x150xf32>, %m: tensor<128x150xf32>) -> tensor<128x150xf32> {
  %p = transformer.masked_softmax %x, %m {transformer.mask_blocks = {block = array<i64: 64, 64>, rows = ["VMP", "MMM"]}} : tensor<128x150xf32>, tensor<128x150xf32> -> tensor<128x150xf32>
  return %p : tensor<128x150xf32>
}

// In the -O2 pipeline, an unfused causal chain (its probabilities are also
// returned) gets its table from --transformer-mask-sparsity and skips the
// blocks above the diagonal in both ops. At -O1 (no sparsity analysis) the
// chain keeps one whole-tensor contraction.
// PIPE-LABEL: func.func @chain
// PIPE: arith.constant dense<{{\[}}[0, 0, 0, 0, 64], [64, 0, 0, 64, 128]]> : tensor<2x5xi64>
// PIPE: scf.forall
// PIPE-COUNT-3: math.exp
// PIPE: scf.forall
// PIPE: linalg.batch_matmul ins({{.*}} : tensor<2x64x?xf32>, tensor<2x?x16xf32>)
// PIPE-NOT: linalg.batch_matmul
// PIPE: return
// O1-LABEL: func.func @chain
// O1: linalg.batch_matmul ins({{.*}} : tensor<2x128x128xf32>, tensor<2x128x16xf32>)
func.func @chain(%q: tensor<2x128x16xf32>, %k: tensor<2x128x16xf32>, %v: tensor<2x128x16xf32>) -> (tensor<2x128x16xf32>, tensor<2x128x128xf32>) {
  %s = transformer.matmul %q, %k {transpose_b} : tensor<2x128x16xf32>, tensor<2x128x16xf32> -> tensor<2x128x128xf32>
  %m = transformer.create_causal_mask : tensor<128x128xf32>
  %p = transformer.masked_softmax %s, %m : tensor<2x128x128xf32>, tensor<128x128xf32> -> tensor<2x128x128xf32>
  %o = transformer.matmul %p, %v : tensor<2x128x128xf32>, tensor<2x128x16xf32> -> tensor<2x128x16xf32>
  return %o, %p : tensor<2x128x16xf32>, tensor<2x128x128xf32>
}
