//===- Elementwise.h - Element-wise ops around a contraction ----*- C++ -*-===//
//
// What the contraction passes (prepare-contractions, fuse-epilogues) accept
// as an element-wise producer or consumer of a contraction's accumulator,
// and how they rewrite one.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_CODEGEN_CPU_ELEMENTWISE_H
#define TRANSFORMER_LIB_CODEGEN_CPU_ELEMENTWISE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::transformer {

/// An element-wise linalg op on tensors: all loops parallel, one init and
/// one result, the result indexed by the identity.
inline bool isElementwiseOnTensors(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.hasPureTensorSemantics() &&
         linalgOp.getNumDpsInits() == 1 && op->getNumResults() == 1 &&
         linalgOp.getNumLoops() == linalgOp.getNumParallelLoops() &&
         linalgOp.getMatchingIndexingMap(linalgOp.getDpsInitOperand(0))
             .isIdentity();
}

/// Whether `op` is element-wise and writes its result without reading its
/// init: a fill, a bias broadcast, GELU of its input.
inline bool isElementwiseIgnoringInit(Operation *op) {
  if (!isElementwiseOnTensors(op))
    return false;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  return !linalgOp.payloadUsesValueFromOperand(linalgOp.getDpsInitOperand(0));
}

/// Replaces the element-wise generic `op` by one with the operands `inputs`
/// and `init` (indexing maps `maps`, the init's last) and `op`'s body, its
/// block argument i standing for the new one `argumentOf[i]` (one entry per
/// argument of `op`'s body). Passes use it to move the accumulator between
/// an op's inputs and its init. Returns the new generic.
linalg::GenericOp rebuildElementwise(RewriterBase &rewriter,
                                     linalg::GenericOp op, ValueRange inputs,
                                     Value init, ArrayRef<AffineMap> maps,
                                     ArrayRef<unsigned> argumentOf);

/// Replaces `tensor.dim` of `op`'s results by `tensor.dim` of their inits
/// (equal sizes, destination style), so that sizes read from an op's result
/// (the bounds of cache tiles over a dynamic number of rows, the sizes of a
/// few-rows kernel) do not keep an op that is otherwise replaced alive.
void replaceDimsOfResults(RewriterBase &rewriter, Operation *op);

} // namespace mlir::transformer

#endif // TRANSFORMER_LIB_CODEGEN_CPU_ELEMENTWISE_H
