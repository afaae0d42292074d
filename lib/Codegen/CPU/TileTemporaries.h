//===- TileTemporaries.h - Temporaries of a tile's own size ---------------===//
//
// Tile-and-fuse gives a fused producer the slice of its whole-tensor init
// (a tensor.empty) that the tile covers: bufferized, every tile writes its
// part of a whole-tensor temporary. transformer-cpu-fuse-epilogues (B's
// transposed blocks) and transformer-cpu-fuse-row-chains (softmax's and
// layer_norm's temporaries) give such ops a tensor.empty of the tile's size
// instead, made once where it can be reused by every tile.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_CODEGEN_CPU_TILETEMPORARIES_H
#define TRANSFORMER_LIB_CODEGEN_CPU_TILETEMPORARIES_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::transformer {

/// Erases `value`'s chain of slices back to its tensor.empty, as far as
/// they have no other use.
inline void eraseUnusedSlices(RewriterBase &rewriter, Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!def->use_empty() || !isa<tensor::ExtractSliceOp, tensor::EmptyOp>(def))
      return;
    value = isa<tensor::ExtractSliceOp>(def) ? def->getOperand(0) : Value();
    rewriter.eraseOp(def);
    if (!value)
      return;
  }
}

/// Erases the users of `op` that are extract_slice ops nobody uses (what
/// tile-and-fuse leaves of a fused producer's original).
inline void eraseUnusedSliceUsers(RewriterBase &rewriter, Operation *op) {
  for (Operation *user : llvm::to_vector(op->getUsers()))
    if (isa<tensor::ExtractSliceOp>(user) && user->use_empty())
      rewriter.eraseOp(user);
}

/// Makes `init` (of a static shape) a fresh tensor.empty created before
/// `insertionPoint`, and erases what the old init leaves unused.
inline void setTileTemporary(RewriterBase &rewriter, OpOperand &init,
                             Operation *insertionPoint) {
  auto type = cast<RankedTensorType>(init.get().getType());
  rewriter.setInsertionPoint(insertionPoint);
  Value buffer =
      tensor::EmptyOp::create(rewriter, init.getOwner()->getLoc(),
                              type.getShape(), type.getElementType());
  Value old = init.get();
  rewriter.modifyOpInPlace(init.getOwner(), [&] { init.set(buffer); });
  eraseUnusedSlices(rewriter, old);
}

} // namespace mlir::transformer

#endif // TRANSFORMER_LIB_CODEGEN_CPU_TILETEMPORARIES_H
