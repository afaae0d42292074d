//===- TileAccumulators.cpp - Accumulators of a cache tile's own size -----===//
//
// Why a temporary: a cache tile's result slice is memory that the call has
// not touched yet (a fresh result, out of every cache), and its rows lie a
// whole result row apart. Accumulated there, the zero fill and then every
// k block's loads and stores of the register tiles wait on those lines
// (GPT-2's and Qwen2's projections have only 3 or 4 k blocks to spread that
// over). A temporary of the tile's size is contiguous and, made again by
// the next tile of the same thread, still in L2; the result slice is then
// written once, by the epilogue (or a copy) at the end of the tile.
//
//===----------------------------------------------------------------------===//

#include "TileAccumulators.h"

#include "Elementwise.h"
#include "TileTemporaries.h"
#include "Transformer/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

using namespace mlir;
using namespace mlir::transformer;

FailureOr<SmallVector<int64_t>>
mlir::transformer::getUpperBounds(ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> bounds;
  for (OpFoldResult size : sizes) {
    FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(size),
        /*stopCondition=*/nullptr, /*closedUB=*/true);
    if (failed(bound))
      return failure();
    bounds.push_back(*bound);
  }
  return bounds;
}

namespace {

/// Replaces the init of `fill` (the element-wise op that starts a tile's
/// accumulator), a slice of the tile's loop, by a tensor.empty of the
/// slice's largest size made at the start of `loop`'s body (sliced to the
/// slice's size before `fill` where that is dynamic). Returns the old init,
/// or null (and changes nothing) when the sizes have no constant bound.
Value replaceInitByTemporary(RewriterBase &rewriter, linalg::LinalgOp fill,
                             tensor::ExtractSliceOp slice, Operation *loop) {
  SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
  FailureOr<SmallVector<int64_t>> bounds = getUpperBounds(sizes);
  if (failed(bounds))
    return {};
  Location loc = fill.getLoc();
  rewriter.setInsertionPointToStart(&loop->getRegion(0).front());
  Value buffer = tensor::EmptyOp::create(rewriter, loc, *bounds,
                                         slice.getType().getElementType());
  if (!slice.getType().hasStaticShape()) {
    rewriter.setInsertionPoint(fill);
    buffer = tensor::ExtractSliceOp::create(
        rewriter, loc, slice.getType(), buffer,
        SmallVector<OpFoldResult>(sizes.size(), rewriter.getIndexAttr(0)),
        sizes,
        SmallVector<OpFoldResult>(sizes.size(), rewriter.getIndexAttr(1)));
  }
  OpOperand &init = *fill.getDpsInitOperand(0);
  Value old = init.get();
  rewriter.modifyOpInPlace(fill, [&] { init.set(buffer); });
  return old;
}

/// The element-wise op that makes `tile`'s accumulator from nothing but its
/// inputs (a zero fill, a broadcast bias), writing a slice; else null.
linalg::LinalgOp getFillOfSlice(linalg::LinalgOp tile) {
  auto fill = tile.getDpsInits()[0].getDefiningOp<linalg::LinalgOp>();
  if (!fill || !isElementwiseIgnoringInit(fill) ||
      !fill.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>())
    return {};
  return fill;
}

/// `root` (an element-wise generic whose init is the accumulator it updates
/// in place) rewritten to read the accumulator as its first input and write
/// `output`: the new generic, which replaces `root`.
Operation *writeInto(RewriterBase &rewriter, linalg::GenericOp root,
                     Value output) {
  OpOperand *acc = root.getDpsInitOperand(0);
  SmallVector<Value> inputs{acc->get()};
  SmallVector<AffineMap> maps{root.getMatchingIndexingMap(acc)};
  // Input i moves to i + 1; the init's argument becomes input 0.
  SmallVector<unsigned> argumentOf;
  for (OpOperand *input : root.getDpsInputOperands()) {
    inputs.push_back(input->get());
    maps.push_back(root.getMatchingIndexingMap(input));
    argumentOf.push_back(inputs.size() - 1);
  }
  maps.push_back(root.getMatchingIndexingMap(acc));
  argumentOf.push_back(0);
  return rebuildElementwise(rewriter, root, inputs, output, maps, argumentOf);
}

/// A copy of `value` into `output` after `after`, tagged as an epilogue
/// (vectorized with the tile), that replaces `value` in its uses but
/// the copy's own.
void copyInto(RewriterBase &rewriter, Value value, Value output,
              Operation *after) {
  auto type = cast<RankedTensorType>(value.getType());
  rewriter.setInsertionPointAfter(after);
  SmallVector<AffineMap> maps(2,
                              rewriter.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  auto copy = linalg::GenericOp::create(
      rewriter, after->getLoc(), TypeRange{type}, ValueRange{value},
      ValueRange{output}, maps, iterators,
      [](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, args[0]);
      });
  copy->setAttr(kContractionAttrName, rewriter.getStringAttr("epilogue"));
  rewriter.replaceAllUsesExcept(value, copy->getResult(0), copy);
}

} // namespace

void mlir::transformer::giveSiblingTileTemporary(RewriterBase &rewriter,
                                                 linalg::LinalgOp sibling,
                                                 Operation *loop) {
  linalg::LinalgOp fill = getFillOfSlice(sibling);
  if (!fill)
    return;
  auto slice = fill.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice.getSource().getDefiningOp<tensor::EmptyOp>())
    return;
  if (Value old = replaceInitByTemporary(rewriter, fill, slice, loop))
    eraseUnusedSlices(rewriter, old);
}

Operation *mlir::transformer::accumulateInTileTemporary(RewriterBase &rewriter,
                                                        linalg::LinalgOp tile,
                                                        Operation *root,
                                                        scf::ForallOp loop) {
  linalg::LinalgOp fill = getFillOfSlice(tile);
  if (!fill || !loop->isProperAncestor(fill))
    return nullptr;
  auto slice = fill.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>();
  // The result's slice: the fill then writes the temporary, and `root`
  // the slice.
  auto source = dyn_cast<BlockArgument>(slice.getSource());
  if (!source || !llvm::is_contained(loop.getRegionIterArgs(), source))
    return nullptr;
  auto rootOp = dyn_cast<linalg::LinalgOp>(root);
  if (!rootOp || rootOp->getNumResults() != 1 ||
      rootOp->getResult(0).getType() != slice.getType())
    return nullptr;
  auto generic = dyn_cast<linalg::GenericOp>(root);
  // The root writes the accumulator in place when its init is the tile's
  // result or that of an element-wise op updating it; a root with an init
  // of its own (the result's slice) already writes the result.
  bool inPlace = root == tile.getOperation();
  for (Value acc = rootOp.getDpsInits()[0]; !inPlace && acc;) {
    Operation *def = acc.getDefiningOp();
    if (def == tile.getOperation()) {
      inPlace = true;
      break;
    }
    auto update = dyn_cast_or_null<linalg::GenericOp>(def);
    acc = update && isElementwiseOnTensors(update) ? update.getDpsInits()[0]
                                                   : Value();
  }
  if (!inPlace || (root != tile.getOperation() &&
                   (!generic || !isElementwiseOnTensors(generic))))
    return nullptr;
  Value output = replaceInitByTemporary(rewriter, fill, slice, loop);
  if (!output)
    return nullptr;
  if (root != tile.getOperation())
    return writeInto(rewriter, generic, output);
  copyInto(rewriter, tile->getResult(0), output, tile);
  return nullptr;
}
