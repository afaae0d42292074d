//===- Panels.h - B laid out in the register tile's panels -----*- C++ -*-===//
//
// Internal to the CPU codegen library. A weight laid out [n / r, k, r] (r the
// register tile's columns) holds each register tile's columns of B
// contiguously down k, the order in which the register tiles read B. Such
// weights are made by --transformer-cpu-cache-constant-weights (a copy made
// on the first call) and --transformer-cpu-panel-parameters (bound so by
// the runner); --transformer-cpu-prepare-contractions and
// --transformer-cpu-panel-contractions read them in place.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_PANELS_H
#define TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_PANELS_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::transformer {

/// How a contraction over (m, n, k) reads a B laid out in panels `width`
/// columns wide ([n / width, k, width]): (n floordiv width, k, n mod width).
inline AffineMap getPanelIndexingMap(MLIRContext *ctx, int64_t width) {
  AffineExpr n = getAffineDimExpr(1, ctx), k = getAffineDimExpr(2, ctx);
  return AffineMap::get(3, 0, {n.floorDiv(width), k, n % width}, ctx);
}

/// Makes the contraction `op` (over (m, n, k), B indexed (k, n)) read B
/// from `panels` ([n / width, k, width]) as (n floordiv width, k, n mod
/// width): the same computation, as a linalg.generic with `op`'s
/// transformer.contraction tag, if any, which it returns.
FailureOr<linalg::GenericOp> readFromPanels(RewriterBase &rewriter,
                                            linalg::LinalgOp op, Value panels,
                                            int64_t width);

/// Transposes the square matrix whose rows are `rows` (`n` vectors of `n`
/// elements, n a power of two) in registers: log2(n) rounds, each swapping
/// the off-diagonal h x h blocks of every 2h x 2h block with one shuffle per
/// row.
void transposeInRegisters(OpBuilder &b, Location loc, SmallVector<Value> &rows);

/// Transposes `rows` (`lanes` vectors of `lanes` elements: rows of n, each
/// along k from `firstK`) in registers (transposeInRegisters) and writes
/// them into `out` as `lanes` rows of k: row c at (firstK + c, `column`) of
/// a [k, n] `out`, or of the panel `panel` of panels [n / w, k, w] (then
/// `column` is the column in the panel). `inBounds` marks the writes in
/// bounds (else out-of-bounds columns are masked). Returns the written
/// `out`.
Value writeTransposedRows(OpBuilder &b, Location loc, SmallVector<Value> rows,
                          Value out, Value panel, Value firstK, Value column,
                          bool inBounds);

/// `source` ([n, k] on tensors, static; n a multiple of `init`'s width w
/// and of `lanes`, k a multiple of `lanes`) transposed into `init`, panels
/// [n / w, k, w] (w a multiple of `lanes`), by vector code: a loop over
/// groups of `lanes` rows of `source`, in it a loop over k by `lanes`; per
/// step one `lanes` x `lanes` tile read, transposed in registers
/// (transposeInRegisters) and stored as `lanes` rows of k into the group's
/// panel. Returns the written panels.
Value transposeIntoPanels(OpBuilder &b, Location loc, Value source, Value init,
                          int64_t lanes);

/// Whether `op`'s body is exactly `yield(c + a * b)` (either order of each
/// pair) on its two inputs a, b and its init c, b possibly widened to f32
/// from bf16 or f16 first (`arith.extf`): what a panel contraction may
/// compute (a body that also negates or otherwise converts an operand is
/// left alone).
bool hasMulAddBody(linalg::LinalgOp op);

/// The panel width r of a contraction over (m, n, k) on tensors that reads B
/// as (n floordiv r, k, n mod r); 0 for any other op.
inline int64_t getPanelWidth(linalg::LinalgOp op) {
  if (op.getNumLoops() != 3 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics())
    return 0;
  AffineMap map = op.getIndexingMapsArray()[1];
  if (map.getNumResults() != 3)
    return 0;
  auto mod = dyn_cast<AffineBinaryOpExpr>(map.getResult(2));
  auto width =
      mod ? dyn_cast<AffineConstantExpr>(mod.getRHS()) : AffineConstantExpr();
  if (!width || width.getValue() <= 0 ||
      map != getPanelIndexingMap(op->getContext(), width.getValue()))
    return 0;
  return width.getValue();
}

} // namespace mlir::transformer

#endif // TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_PANELS_H
