//===- DotKernel.h - Few rows times a B indexed (n, k) --------*- C++ -*-===//
//
// Internal to the CPU codegen library: the contraction form for few rows of
// A by a B whose rows are the output columns (transpose_b, the LM head).
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_CODEGEN_CPU_DOTKERNEL_H
#define TRANSFORMER_LIB_CODEGEN_CPU_DOTKERNEL_H

#include "Transformer/Conversion/TransformerToLinalg/Dequantize.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::transformer {

/// Contractions with at most this many rows (m) take the dot-product form.
constexpr int64_t kDotMaxRows = 16;
/// ... or the row form, which with one row at a time reads B's 64-column
/// tile again for every row (from L2): on 768 x 2304, 1 row 0.05 ms against
/// 0.16 for the register tiles, 2 rows 0.09, 4 rows 0.16 (even), 8 rows 0.34
/// against 0.19. That is AVX2's limit (16 ymm hold one row's tile).
constexpr int64_t kRowMaxRows = 3;
/// Where the row form takes rows in groups that read B's row once
/// (getRowFormGroup > 1: 4 rows with 32 zmm), up to this many rows: on Zen 5,
/// 896 x 4864 then 4864 x 896, 4 rows 0.85-0.9 ms against 2.9 for the
/// register tiles, 8 rows 1.5-1.7 against 2.6, 16 rows 2.35-2.4 against
/// 3.2-3.3 (one thread).
constexpr int64_t kRowFormMaxRowsGrouped = 16;

/// Rows of A the row form's register tile takes at once for `op`'s target:
/// as many (up to 4) as leave registers for B's 64 columns and a broadcast
/// (4 with 32 zmm, 1 with 16 ymm).
int64_t getRowFormGroup(Operation *op);
/// The most rows for which `op`'s target takes the row form.
int64_t getRowFormMaxRows(Operation *op);

/// Whether a B of element type `type` is read by f32 kernels by widening
/// each loaded vector (bf16, f16): the kernels never make an f32 copy.
bool isWidenedToF32(Type type);

/// Reads a vector of `type` (f32) from `source` at `indices`, in bounds: a
/// vector of the source's element type, widened (arith.extf) when that is
/// bf16 or f16.
Value readAsF32(OpBuilder &b, Location loc, VectorType type, Value source,
                ValueRange indices);

/// Whether `op` is C[m, n] += A[m, k] * B[n, k] on f32 tensors (B may be
/// bf16 or f16) with a static
/// k that is a multiple of the target's f32 vector lanes (16, or 8 on AVX2).
bool isDotForm(linalg::LinalgOp op);

/// Builds C[m, n] += A[m, k] * B[n, k] for `op` (isDotForm) as vector code
/// on tensors and returns C's new value: blocks of 256 columns over the
/// threads (`scf.forall`); for 8 columns and one row of A, 8 accumulators of
/// one vector register each run along k (A and B both read along their
/// contiguous rows), then 8 horizontal sums. B is read once, with no transposed
/// copy: for one row of A (a decode step) such a copy would cost twice the
/// product itself. With `quantized` (B is a dequantized weight), B is read
/// from its blocks: per block of 32 along k, the values widened in
/// registers, their products with A summed, then scaled once.
Value buildDotKernel(OpBuilder &b, linalg::LinalgOp op,
                     std::optional<DequantizedWeight> quantized = {});

/// Whether `op` is C[m, n] += A[m, k] * B[k, n] on f32 tensors with B laid
/// out in panels (Panels.h): a linalg.generic whose body multiplies and
/// adds.
bool isF32PanelContraction(linalg::LinalgOp op);

/// Whether `op` is C[m, n] += A[m, k] * B[k, n] on f32 tensors (B may be
/// bf16 or f16, or f32 in panels whose width divides 64) with a static
/// n that is a multiple of 64 (a decode step's `linear` in the Conv1D layout
/// of GPT-2's weights).
bool isRowForm(linalg::LinalgOp op);

/// Builds C[m, n] += A[m, k] * B[k, n] for `op` (isRowForm) as vector code on
/// tensors: blocks of 256 columns over the threads; for 64 columns and a
/// group of getRowFormGroup rows of A, that many times 64 / lanes
/// accumulators along k, each step 64 / lanes contiguous loads of B's row k
/// shared by the rows and a broadcast of A[m, k] per row; the rows past the
/// last whole group one at a time. The contraction schedule's register tile
/// would pad a row to its m (8 with AVX-512) and do that many times the
/// FMAs, and pack B for a few rows.
Value buildRowKernel(OpBuilder &b, linalg::LinalgOp op);

} // namespace mlir::transformer

#endif // TRANSFORMER_LIB_CODEGEN_CPU_DOTKERNEL_H
