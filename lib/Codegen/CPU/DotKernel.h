//===- DotKernel.h - Few rows times a B indexed (n, k) --------*- C++ -*-===//
//
// Internal to the CPU codegen library: the contraction form for few rows of
// A by a B whose rows are the output columns (transpose_b, the LM head).
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_CODEGEN_CPU_DOTKERNEL_H
#define TRANSFORMER_LIB_CODEGEN_CPU_DOTKERNEL_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

namespace mlir::transformer {

/// Contractions with at most this many rows (m) take the dot-product form.
constexpr int64_t kDotMaxRows = 16;

/// Whether `op` is C[m, n] += A[m, k] * B[n, k] on f32 tensors with a static
/// k that is a multiple of 16.
bool isDotForm(linalg::LinalgOp op);

/// Builds C[m, n] += A[m, k] * B[n, k] for `op` (isDotForm) as vector code
/// on tensors and returns C's new value: blocks of 256 columns over the
/// threads (`scf.forall`); for 8 columns and one row of A, 8 accumulators of
/// 16 lanes run along k (A and B both read along their contiguous rows), then
/// 8 horizontal sums. B is read once, with no transposed copy: for one row of
/// A (a decode step) such a copy would cost twice the product itself.
Value buildDotKernel(OpBuilder &b, linalg::LinalgOp op);

} // namespace mlir::transformer

#endif // TRANSFORMER_LIB_CODEGEN_CPU_DOTKERNEL_H
