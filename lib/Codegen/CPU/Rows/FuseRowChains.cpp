//===- FuseRowChains.cpp - Row reductions and their consumers, per row ----===//
//
// softmax and layer_norm decompose into a chain of linalg ops: row
// reductions (max, sum, mean, variance) and the element-wise ops around them,
// each a pass over the whole tensor with a tensor-sized temporary between
// them. This pass tiles the last op of such a chain along its rows and fuses
// the whole chain into the row tiles
// (scf::tileConsumerAndFuseProducersUsingSCF, on tensors, before
// bufferization): every row is then read once from memory and the chain's
// temporaries are a tile's rows, which stay in L1.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/Passes.h"

#include "RowStructure.h"
#include "TileTemporaries.h"

#include "Transformer/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/CSE.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERCPUFUSEROWCHAINSPASS
#include "Transformer/Codegen/CPU/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

namespace {

/// Elements per row tile: rows of 128 f32 give tiles of 32 rows (16 KiB per
/// tensor, a few of which fit L1 together), rows of 768 tiles of 4.
constexpr int64_t kRowTileElements = 4096;

/// A linalg op on tensors that a row tile can compute for its rows alone: a
/// row op (hasRowStructure) with one result, indexed by the leading loops in
/// order.
bool isRowChainOp(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics() ||
      linalgOp.getNumDpsInits() != 1 || !hasRowStructure(linalgOp))
    return false;
  AffineMap out =
      linalgOp.getMatchingIndexingMap(linalgOp.getDpsInitOperand(0));
  for (auto [i, e] : llvm::enumerate(out.getResults()))
    if (cast<AffineDimExpr>(e).getPosition() != static_cast<int64_t>(i))
      return false;
  return true;
}

/// A fill: linalg.fill, or the linalg.generic that generalization makes of
/// one (no inputs, every loop parallel).
bool isFill(Operation *op) {
  if (isa<linalg::FillOp>(op))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && generic.getNumDpsInputs() == 0 &&
         generic.getNumReductionLoops() == 0;
}

/// A row reduction: a row chain op whose innermost loop reduces.
bool isRowReduction(Operation *op) {
  if (!isRowChainOp(op))
    return false;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  return linalgOp.getNumReductionLoops() == 1;
}

/// An element-wise row chain op over all of its loops (the result indexed by
/// all of them).
bool isFullRankElementwise(Operation *op) {
  if (!isRowChainOp(op))
    return false;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  return linalgOp.getNumReductionLoops() == 0 &&
         linalgOp.getMatchingIndexingMap(linalgOp.getDpsInitOperand(0))
             .isIdentity();
}

/// One chain: its last op (tiled), and the ops fused into its tiles.
struct RowChain {
  Operation *root;
  llvm::SmallPtrSet<Operation *, 8> members;
};

/// The chain that ends at `root` (a full-rank element-wise op): the row
/// chain ops it depends on, back through the block, whose every use is in
/// the chain, as far as one of them is a row reduction over the same loops.
/// Fills may also initialize others. Returns std::nullopt without a
/// reduction (a lone element-wise op is the row strategy's already).
std::optional<RowChain> collectChain(Operation *root) {
  auto rootOp = cast<linalg::LinalgOp>(root);
  int64_t rank = rootOp.getNumLoops();
  RowChain chain{root, {root}};
  bool hasReduction = false;
  auto belongs = [&](Operation *op) {
    if (!op || op->getBlock() != root->getBlock() || !isRowChainOp(op))
      return false;
    auto linalgOp = cast<linalg::LinalgOp>(op);
    // The same rows: the same loops (rank), or the rows alone (a fill or
    // scaling of a reduction's result).
    if (linalgOp.getNumLoops() != rank && linalgOp.getNumLoops() != rank - 1)
      return false;
    if (isFill(op))
      return true;
    return llvm::all_of(op->getUsers(), [&](Operation *user) {
      return chain.members.contains(user);
    });
  };
  // Backwards in program order, so that a producer's users are all decided
  // before it.
  for (Operation *op = root->getPrevNode(); op; op = op->getPrevNode()) {
    if (!belongs(op))
      continue;
    bool feeds = llvm::any_of(op->getUsers(), [&](Operation *user) {
      return chain.members.contains(user);
    });
    if (!feeds)
      continue;
    chain.members.insert(op);
    hasReduction |= isRowReduction(op);
  }
  if (!hasReduction)
    return std::nullopt;
  return chain;
}

/// In a chain member, `x / s` with `s` the same along the row (a row sum,
/// as softmax divides by) becomes `x * r` with `r = 1 / s` computed once per
/// row by a new op, which joins the chain: a division costs about ten
/// multiplications here. (PyTorch's softmax multiplies by the reciprocal
/// too; the results differ from a division by at most an ulp or so.)
void multiplyByRowReciprocals(RewriterBase &rewriter, RowChain &chain) {
  SmallVector<linalg::GenericOp> candidates;
  for (Operation *op : chain.members)
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      if (isFullRankElementwise(op))
        candidates.push_back(generic);
  for (linalg::GenericOp op : candidates) {
    int64_t rank = op.getNumLoops();
    Block *body = op.getBody();
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      auto type = dyn_cast<RankedTensorType>(input->get().getType());
      // Indexed by the rows alone, in order.
      if (!type || map.getNumResults() != rank - 1 ||
          !type.getElementType().isF32())
        continue;
      bool rowsOnly = true;
      for (auto [i, e] : llvm::enumerate(map.getResults()))
        rowsOnly &=
            cast<AffineDimExpr>(e).getPosition() == static_cast<int64_t>(i);
      BlockArgument arg = body->getArgument(input->getOperandNumber());
      auto divide = arg.hasOneUse()
                        ? dyn_cast<arith::DivFOp>(*arg.getUsers().begin())
                        : nullptr;
      if (!rowsOnly || !divide || divide.getRhs() != arg ||
          divide.getLhs() == arg)
        continue;
      Location loc = op.getLoc();
      rewriter.setInsertionPoint(op);
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, input->get());
      Value init =
          tensor::EmptyOp::create(rewriter, loc, sizes, type.getElementType());
      AffineMap identity = rewriter.getMultiDimIdentityMap(rank - 1);
      SmallVector<utils::IteratorType> parallel(rank - 1,
                                                utils::IteratorType::parallel);
      auto reciprocal = linalg::GenericOp::create(
          rewriter, loc, type, ValueRange{input->get()}, ValueRange{init},
          ArrayRef<AffineMap>{identity, identity}, parallel,
          [&](OpBuilder &b, Location nested, ValueRange args) {
            Value one = arith::ConstantOp::create(
                b, nested, b.getFloatAttr(args[0].getType(), 1.0));
            Value r = arith::DivFOp::create(b, nested, one, args[0]);
            linalg::YieldOp::create(b, nested, r);
          });
      chain.members.insert(reciprocal);
      rewriter.modifyOpInPlace(op,
                               [&] { input->set(reciprocal->getResult(0)); });
      rewriter.setInsertionPoint(divide);
      rewriter.replaceOpWithNewOp<arith::MulFOp>(
          divide, divide.getLhs(), divide.getRhs(), divide.getFastmathAttr());
    }
  }
}

/// Erases the ops of `region` that are trivially dead, until none is left
/// (an op erased in the post-order walk is the one being visited, which the
/// walk allows; its producers become dead in the next round).
void eraseDeadOps(RewriterBase &rewriter, Region &region) {
  bool erased = true;
  while (erased) {
    erased = false;
    region.walk([&](Operation *op) {
      if (isOpTriviallyDead(op)) {
        rewriter.eraseOp(op);
        erased = true;
      }
    });
  }
}

/// The rows a tile takes along `rows` (static sizes): about
/// kRowTileElements elements, and a divisor of `rows` so that every tile
/// has the same static shape.
int64_t rowTileSize(int64_t rows, int64_t rowLength) {
  int64_t target = std::max<int64_t>(1, kRowTileElements / rowLength);
  for (int64_t size = std::min(target, rows); size > 1; --size)
    if (rows % size == 0)
      return size;
  return 1;
}

/// After fusion and CSE, gives every op of the tile an init of its own: a
/// fill that CSE made shared (the zero of layer_norm's two sums) is cloned
/// per user, and each op that writes a temporary (an init that is a
/// tensor.empty, or a slice of one) gets a tensor.empty of the tile's
/// (static) size, so that the tile writes buffers of its own size and
/// bufferization needs no copies. In a sequential loop those are made once,
/// before the loop, and reused by every tile.
void giveTilesTheirOwnTemporaries(RewriterBase &rewriter, Operation *loop) {
  SmallVector<linalg::LinalgOp> ops;
  loop->getRegion(0).walk([&](linalg::LinalgOp op) {
    if (op.getNumDpsInits() == 1 && op.hasPureTensorSemantics())
      ops.push_back(op);
  });
  bool sequential = isa<scf::ForOp>(loop);
  for (linalg::LinalgOp op : ops) {
    OpOperand *init = op.getDpsInitOperand(0);
    if (Operation *fill = init->get().getDefiningOp();
        fill && isFill(fill) && !fill->hasOneUse() &&
        loop->isProperAncestor(fill)) {
      rewriter.setInsertionPoint(op);
      Operation *clone = rewriter.clone(*fill);
      rewriter.modifyOpInPlace(op, [&] { init->set(clone->getResult(0)); });
    }
  }
  // A walk again: it also meets the fills cloned above.
  loop->getRegion(0).walk([&](linalg::LinalgOp op) {
    if (op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics())
      return;
    OpOperand *init = op.getDpsInitOperand(0);
    Operation *def = init->get().getDefiningOp();
    auto slice = dyn_cast_or_null<tensor::ExtractSliceOp>(def);
    bool fromEmpty = slice ? isa_and_nonnull<tensor::EmptyOp>(
                                 slice.getSource().getDefiningOp())
                           : isa_and_nonnull<tensor::EmptyOp>(def);
    if (!fromEmpty || (!slice && def->hasOneUse() && !sequential))
      return;
    setTileTemporary(rewriter, *init, sequential ? loop : op.getOperation());
  });
}

LogicalResult fuseChain(RewriterBase &rewriter, RowChain &chain,
                        int64_t minThreadedElements) {
  auto root = cast<linalg::LinalgOp>(chain.root);
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  int64_t rank = ranges.size();
  int64_t elements = 1;
  bool dynamic = false;
  for (int64_t range : ranges) {
    dynamic |= ShapedType::isDynamic(range);
    if (!ShapedType::isDynamic(range))
      elements *= range;
  }
  // With a dynamic number of rows the tiles would be rows of one, each
  // allocating its temporaries on its thread (GPT-2's prefill: 10% slower
  // than four separate passes); such chains keep the row strategy's passes.
  if (dynamic)
    return failure();
  // Leading loops one at a time, the last row loop in tiles of rows, the
  // row itself whole.
  SmallVector<OpFoldResult> sizes(rank - 2, rewriter.getIndexAttr(1));
  sizes.push_back(
      rewriter.getIndexAttr(rowTileSize(ranges[rank - 2], ranges[rank - 1])));
  sizes.push_back(rewriter.getIndexAttr(0));
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(sizes);
  // As the row strategy (transformer-cpu-vectorize-rows): small static
  // chains stay on the calling thread.
  tiling.setLoopType(elements >= minThreadedElements
                         ? scf::SCFTilingOptions::LoopType::ForallOp
                         : scf::SCFTilingOptions::LoopType::ForOp);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (!chain.members.contains(producer.getOwner()))
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  rewriter.setInsertionPoint(chain.root);
  FailureOr<scf::SCFTileAndFuseResult> fused =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(chain.root), options);
  if (failed(fused) || fused->loops.empty())
    return failure();
  for (auto [value, replacement] : fused->replacements)
    rewriter.replaceAllUsesWith(value, replacement);
  // An op used twice in the chain (the exp of softmax: by the sum and by
  // the division) was fused once per use: CSE leaves one of each, then what
  // is left unused goes.
  Operation *outer = fused->loops.front();
  DominanceInfo dominance(outer);
  eliminateCommonSubExpressions(rewriter, dominance, outer);
  eraseDeadOps(rewriter, outer->getRegion(0));
  giveTilesTheirOwnTemporaries(rewriter, outer);
  // The chain is one kernel for --transformer-outline-kernels.
  outer->setAttr(kKernelRootAttrName, rewriter.getUnitAttr());
  return success();
}

struct FuseRowChainsPass
    : public transformer::impl::TransformerCPUFuseRowChainsPassBase<
          FuseRowChainsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Roots: full-rank element-wise ops that no row chain op uses further
    // on (the end of a chain), latest first.
    SmallVector<Operation *> roots;
    getOperation().walk([&](Operation *op) {
      // Not in code that is tiled already (a kernel root, a cache tile).
      // A rank-1 chain is one row: nothing to tile.
      if (!isFullRankElementwise(op) ||
          cast<linalg::LinalgOp>(op).getNumLoops() < 2 ||
          op->getParentOfType<scf::ForallOp>())
        return;
      for (Operation *parent = op->getParentOp(); parent;
           parent = parent->getParentOp())
        if (parent->hasAttr(kKernelRootAttrName))
          return;
      if (llvm::any_of(op->getUsers(), [&](Operation *user) {
            return user->getBlock() == op->getBlock() && isRowChainOp(user) &&
                   !isFill(user);
          }))
        return;
      roots.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    llvm::SmallPtrSet<Operation *, 32> taken;
    for (Operation *root : llvm::reverse(roots)) {
      if (taken.contains(root))
        continue;
      std::optional<RowChain> chain = collectChain(root);
      if (!chain || llvm::any_of(chain->members, [&](Operation *op) {
            return taken.contains(op);
          }))
        continue;
      taken.insert(chain->members.begin(), chain->members.end());
      multiplyByRowReciprocals(rewriter, *chain);
      (void)fuseChain(rewriter, *chain, minThreadedElements);
    }
    // The originals, now unused, and what tiling left unused (tensor.dim
    // ops of the originals): outline-kernels would make kernels of them.
    eraseDeadOps(rewriter, getOperation().getBody());
  }
};

} // namespace
