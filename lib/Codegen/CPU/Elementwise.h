//===- Elementwise.h - Element-wise ops around a contraction ----*- C++ -*-===//
//
// What the contraction passes (prepare-contractions, fuse-epilogues) accept
// as an element-wise producer or consumer of a contraction's accumulator.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_CODEGEN_CPU_ELEMENTWISE_H
#define TRANSFORMER_LIB_CODEGEN_CPU_ELEMENTWISE_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

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

} // namespace mlir::transformer

#endif // TRANSFORMER_LIB_CODEGEN_CPU_ELEMENTWISE_H
