//===- Panels.cpp - B laid out in the register tile's panels --------------===//

#include "Panels.h"

#include "Transformer/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

using namespace mlir;
using namespace mlir::transformer;

LogicalResult transformer::readFromPanels(RewriterBase &rewriter,
                                          linalg::LinalgOp op, Value panels,
                                          int64_t width) {
  rewriter.setInsertionPoint(op);
  Attribute tag = op->getAttr(kContractionAttrName);
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generalized))
      return failure();
    generic = *generalized;
  }
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  maps[1] = getPanelIndexingMap(op->getContext(), width);
  rewriter.modifyOpInPlace(generic, [&] {
    generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    generic.getDpsInputOperand(1)->set(panels);
    if (tag)
      generic->setAttr(kContractionAttrName, tag);
  });
  return success();
}
