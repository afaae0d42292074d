//===- Elementwise.cpp - Element-wise ops around a contraction ------------===//
//
// Rewrites of the element-wise ops that the contraction passes fuse with a
// contraction's accumulator.
//
//===----------------------------------------------------------------------===//

#include "Elementwise.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::transformer;

linalg::GenericOp mlir::transformer::rebuildElementwise(
    RewriterBase &rewriter, linalg::GenericOp op, ValueRange inputs, Value init,
    ArrayRef<AffineMap> maps, ArrayRef<unsigned> argumentOf) {
  Block *body = op.getBody();
  rewriter.setInsertionPoint(op);
  auto rebuilt = linalg::GenericOp::create(
      rewriter, op.getLoc(), op.getResultTypes(), inputs, ValueRange{init},
      maps, op.getIteratorTypesArray(),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        IRMapping mapping;
        for (auto [argument, index] :
             llvm::zip_equal(body->getArguments(), argumentOf))
          mapping.map(argument, args[index]);
        for (Operation &nested : body->without_terminator())
          b.clone(nested, mapping);
        SmallVector<Value> yielded;
        for (Value value : body->getTerminator()->getOperands())
          yielded.push_back(mapping.lookupOrDefault(value));
        linalg::YieldOp::create(b, loc, yielded);
      });
  rebuilt->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rewriter.replaceOp(op, rebuilt->getResults());
  return rebuilt;
}

void mlir::transformer::replaceDimsOfResults(RewriterBase &rewriter,
                                             Operation *op) {
  auto dps = dyn_cast<DestinationStyleOpInterface>(op);
  if (!dps)
    return;
  for (OpResult result : op->getResults())
    for (OpOperand &use : llvm::make_early_inc_range(result.getUses()))
      if (auto dim = dyn_cast<tensor::DimOp>(use.getOwner()))
        rewriter.modifyOpInPlace(dim, [&] {
          dim.getSourceMutable().assign(dps.getTiedOpOperand(result)->get());
        });
}
