//===- VectorizeRows.cpp - Row strategy: element-wise and row reductions --===//
//
// The CPU strategy for everything that is not a contraction: element-wise
// ops (all loops parallel) and row reductions (parallel loops and one
// innermost reduction: softmax's max and sum, layer_norm's mean and
// variance). Ops are matched by structure, not by name, so linalg.generic,
// linalg.map/reduce and the named element-wise ops take the same path.
//
// Why C++ and not a transform schedule: the tile and vector sizes depend on
// each op's rank (one tile of 1 per row dimension), and MLIR 22's
// transform ops take one static size list per handle, so a schedule would
// need one sequence per rank and per kind; the structural match (no
// transposed operand, innermost loop contiguous) is also not expressible with
// transform.structured.match.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/Passes.h"

#include "RowStructure.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorTransforms.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERCPUVECTORIZEROWSPASS
#include "Transformer/Codegen/CPU/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

//===----------------------------------------------------------------------===//
// The tiling numbers, in one place.
//===----------------------------------------------------------------------===//

/// Row tile: every loop but the innermost is tiled by 1 in one scf.forall,
/// whose iterations (rows) the threading stage splits over the threads.
/// Vector tile along the row (the innermost, contiguous loop): 64 f32 = 4
/// zmm registers per operand, enough independent work to hide the latency
/// of the polynomial exp, small enough that a 2-D vector never reaches the
/// vector lowering (the compile-time traps of vector<1x768>). Rows that do
/// not divide are peeled: the remainder is vectorized at its static size, or
/// stays a scalar loop when the row length is dynamic.
static constexpr int64_t kRowVectorSize = 64;

static constexpr llvm::StringLiteral kRowAttrName = "transformer.row";

namespace {

/// A row op (hasRowStructure) on buffers of scalars whose innermost
/// dimension is contiguous.
bool isRowOp(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || !hasRowStructure(op))
    return false;
  // Only float and integer scalars (no complex, no nested vectors), in
  // buffers whose innermost dimension is contiguous: a strided one (a slice
  // with step 2) would need gathers, which the transfer lowering leaves
  // unconverted.
  for (OpOperand &operand : op->getOpOperands()) {
    Type t = getElementTypeOrSelf(operand.get().getType());
    if (!t.isIntOrIndexOrFloat())
      return false;
    auto memref = dyn_cast<MemRefType>(operand.get().getType());
    if (!memref || memref.getRank() == 0)
      continue;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(memref.getStridesAndOffset(strides, offset)) ||
        (strides.back() != 1 && memref.getShape().back() != 1))
      return false;
  }
  return true;
}

/// Whether `op` is large enough to split over threads: at least
/// kMinThreadedRowElements elements (PyTorch splits element-wise work in
/// grains of 32K). A fork/join costs a few microseconds while the OpenMP
/// threads spin (transformer-run's KMP_BLOCKTIME=1 keeps them spinning for
/// 1 ms after each region, so back-to-back kernels find them awake) and
/// about 0.35 ms when they sleep (OMP_WAIT_POLICY=PASSIVE with
/// KMP_BLOCKTIME=0); below 64K elements an op gains less than the first.
/// Dynamic sizes are split.
bool isWorthThreads(linalg::LinalgOp op) {
  // In a tile of rows that is split over the threads already
  // (transformer-cpu-fuse-row-chains).
  if (op->getParentOfType<scf::ForallOp>())
    return false;
  int64_t elements = 1;
  for (int64_t range : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range))
      return true;
    elements *= range;
  }
  return elements >= kMinThreadedRowElements;
}

/// Tiles `op` into rows (scf.forall) and vector tiles along the row
/// (scf.for, peeled). The tiled ops keep the kRowAttrName tag.
LogicalResult tileRowOp(RewriterBase &rewriter, linalg::LinalgOp op) {
  int64_t rank = op.getNumLoops();
  auto tilingOp = cast<TilingInterface>(op.getOperation());
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Operation *rowOp = op;
  if (rank > 1) {
    SmallVector<OpFoldResult> sizes(rank - 1, rewriter.getIndexAttr(1));
    sizes.push_back(rewriter.getIndexAttr(0));
    scf::SCFTilingOptions options;
    options.setTileSizes(sizes);
    options.setLoopType(isWorthThreads(op)
                            ? scf::SCFTilingOptions::LoopType::ForallOp
                            : scf::SCFTilingOptions::LoopType::ForOp);
    FailureOr<scf::SCFTilingResult> rows =
        scf::tileUsingSCF(rewriter, tilingOp, options);
    if (failed(rows))
      return failure();
    rewriter.eraseOp(op);
    rowOp = rows->tiledOps.front();
  }
  SmallVector<OpFoldResult> sizes(rank - 1, rewriter.getIndexAttr(0));
  sizes.push_back(rewriter.getIndexAttr(kRowVectorSize));
  scf::SCFTilingOptions options;
  options.setTileSizes(sizes);
  rewriter.setInsertionPoint(rowOp);
  FailureOr<scf::SCFTilingResult> chunks =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(rowOp), options);
  if (failed(chunks))
    return failure();
  rewriter.eraseOp(rowOp);
  if (chunks->loops.empty())
    return success();
  if (auto loop = dyn_cast<scf::ForOp>(chunks->loops.front().getOperation())) {
    scf::ForOp remainder;
    // Fails when the trip count divides evenly: nothing to peel.
    (void)scf::peelForLoopAndSimplifyBounds(rewriter, loop, remainder);
  }
  return success();
}

/// A max or min reduction of a 1-D vector as a tree of element-wise max/min
/// ops on halves. LLVM expands `llvm.vector.reduce.fmax` without `nnan`
/// into a sequential chain of scalar maxnum steps (three dependent
/// instructions per element on x86: 16 steps per zmm), which made softmax's
/// row max most of its time; the tree takes log2(n) vector steps with the
/// same NaN semantics (max and min are associative and commutative).
struct MinMaxReductionToTree : OpRewritePattern<vector::ReductionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::ReductionOp op,
                                PatternRewriter &rewriter) const override {
    vector::CombiningKind kind = op.getKind();
    if (kind != vector::CombiningKind::MAXNUMF &&
        kind != vector::CombiningKind::MINNUMF &&
        kind != vector::CombiningKind::MAXIMUMF &&
        kind != vector::CombiningKind::MINIMUMF)
      return failure();
    VectorType type = op.getSourceVectorType();
    int64_t n = type.getNumElements();
    if (type.getRank() != 1 || type.isScalable() || n < 2 ||
        !llvm::isPowerOf2_64(n))
      return failure();
    Location loc = op.getLoc();
    Value v = op.getVector();
    while (n > 1) {
      int64_t half = n / 2;
      SmallVector<int64_t> low = llvm::to_vector(llvm::seq<int64_t>(0, half));
      SmallVector<int64_t> high = llvm::to_vector(llvm::seq<int64_t>(half, n));
      Value a = vector::ShuffleOp::create(rewriter, loc, v, v, low);
      Value b = vector::ShuffleOp::create(rewriter, loc, v, v, high);
      v = vector::makeArithReduction(rewriter, loc, kind, a, b,
                                     op.getFastmathAttr());
      n = half;
    }
    Value result = vector::ExtractOp::create(rewriter, loc, v, 0);
    if (Value acc = op.getAcc())
      result = vector::makeArithReduction(rewriter, loc, kind, result, acc,
                                          op.getFastmathAttr());
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct VectorizeRowsPass
    : public transformer::impl::TransformerCPUVectorizeRowsPassBase<
          VectorizeRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);

    // 1. Tiling: rows over threads, vector tiles along each row.
    SmallVector<linalg::LinalgOp> candidates;
    func.walk([&](linalg::LinalgOp op) {
      if (isRowOp(op))
        candidates.push_back(op);
    });
    if (candidates.empty())
      return;
    for (linalg::LinalgOp op : candidates) {
      // One form for all: named ops (linalg.map, linalg.add, ...) become
      // linalg.generic, whose tiles fold the memref.casts of tiling away.
      if (!isa<linalg::GenericOp>(op)) {
        rewriter.setInsertionPoint(op);
        FailureOr<linalg::GenericOp> generic =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generic))
          continue;
        op = *generic;
      }
      op->setAttr(kRowAttrName, UnitAttr::get(ctx));
      // An op that cannot be tiled stays as it is (loops later).
      (void)tileRowOp(rewriter, op);
    }
    // Peeled loops of one iteration fold away; the main vector tiles become
    // static.
    {
      RewritePatternSet patterns(ctx);
      for (Dialect *dialect : ctx->getLoadedDialects())
        dialect->getCanonicalizationPatterns(patterns);
      for (RegisteredOperationName op : ctx->getRegisteredOperations())
        op.getCanonicalizationPatterns(patterns, ctx);
      if (failed(applyPatternsGreedily(func, std::move(patterns))))
        return signalPassFailure();
    }

    // 2. Vectorization of every tile with a static shape; dynamic remainders
    // stay scalar (convert-linalg-to-loops).
    SmallVector<linalg::LinalgOp> tiles;
    func.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kRowAttrName))
        tiles.push_back(op);
    });
    for (linalg::LinalgOp op : tiles) {
      op->removeAttr(kRowAttrName);
      if (failed(linalg::vectorizeOpPrecondition(op)))
        continue;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::VectorizationResult> result =
          linalg::vectorize(rewriter, op);
      if (succeeded(result))
        rewriter.eraseOp(op);
    }

    // 3. Vector cleanup and lowering to 1-D vectors: fold the subviews into
    // the transfers, drop the leading unit dimensions of the row tiles,
    // reductions along the row to vector.reduction, and exp/tanh/erf to
    // polynomials (on vectors and on the scalar remainders alike).
    {
      RewritePatternSet patterns(ctx);
      memref::populateFoldMemRefAliasOpPatterns(patterns);
      vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
      vector::populateVectorMultiReductionLoweringPatterns(
          patterns, vector::VectorMultiReductionLowering::InnerReduction);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      vector::populateVectorShapeCastLoweringPatterns(patterns);
      patterns.add<MinMaxReductionToTree>(ctx);
      populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
        return name == math::ExpOp::getOperationName() ||
               name == math::TanhOp::getOperationName() ||
               name == math::ErfOp::getOperationName();
      });
      vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
      vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
      vector::BroadcastOp::getCanonicalizationPatterns(patterns, ctx);
      vector::ShapeCastOp::getCanonicalizationPatterns(patterns, ctx);
      vector::ExtractOp::getCanonicalizationPatterns(patterns, ctx);
      if (failed(applyPatternsGreedily(func, std::move(patterns))))
        return signalPassFailure();
    }
    DominanceInfo dominance(func);
    eliminateCommonSubExpressions(rewriter, dominance, func);
  }
};

} // namespace
