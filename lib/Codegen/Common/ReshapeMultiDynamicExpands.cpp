//===- ReshapeMultiDynamicExpands.cpp - expand_shape -> tensor.reshape ----===//
//
// Works around a crash of MLIR 22's --expand-strided-metadata on a
// memref.expand_shape group with more than one dynamic size: such
// tensor.expand_shape ops become tensor.reshape before bufferization.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERRESHAPEMULTIDYNAMICEXPANDSPASS
#include "Transformer/Codegen/Common/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;

namespace {
/// Whether a group of `op`'s result dimensions has several dynamic sizes.
bool hasMultiDynamicGroup(tensor::ExpandShapeOp op) {
  RankedTensorType type = op.getResultType();
  return llvm::any_of(op.getReassociationIndices(),
                      [&](const ReassociationIndices &group) {
                        return llvm::count_if(group, [&](int64_t dim) {
                                 return type.isDynamicDim(dim);
                               }) > 1;
                      });
}

struct TransformerReshapeMultiDynamicExpandsPass
    : transformer::impl::TransformerReshapeMultiDynamicExpandsPassBase<
          TransformerReshapeMultiDynamicExpandsPass> {
  void runOnOperation() override {
    SmallVector<tensor::ExpandShapeOp> expands;
    getOperation().walk([&](tensor::ExpandShapeOp op) {
      if (hasMultiDynamicGroup(op))
        expands.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (tensor::ExpandShapeOp op : expands) {
      rewriter.setInsertionPoint(op);
      Location loc = op.getLoc();
      SmallVector<Value> sizes = getValueOrCreateConstantIndexOp(
          rewriter, loc, op.getMixedOutputShape());
      Value shape = tensor::FromElementsOp::create(
          rewriter, loc,
          RankedTensorType::get({static_cast<int64_t>(sizes.size())},
                                rewriter.getIndexType()),
          sizes);
      rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, op.getResultType(),
                                                     op.getSrc(), shape);
    }
  }
};
} // namespace
