//===- FuseEpilogues.cpp - Cache tiles of contractions with epilogues -----===//
//
// Forms the cache tiles of every tagged contraction on tensors, before
// bufferization, and fuses into each tile what initializes the accumulator
// (a zero fill, the bias broadcast of a linear) and the element-wise ops that
// consume the result (bias add, GELU, residual add, scale). The contraction
// tile is then followed by its epilogue while it is still in cache, instead
// of a separate pass over memory.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/Codegen/CPU/Target/CPUTarget.h"

#include "Elementwise.h"
#include "Panels.h"
#include "QuantizedBlocks.h"
#include "TileAccumulators.h"
#include "TileSizes.h"
#include "TileTemporaries.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERCPUFUSEEPILOGUESPASS
#include "Transformer/Codegen/CPU/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

namespace {

/// The most of the threads' time that the last round of cache tiles may
/// leave idle (count tiles on t threads: 1 - count / (t * ceil(count / t))).
constexpr double kMaxIdleShare = 0.03;

/// The cache tile (m, n) for a result of `shape`: `tileM` x `tileN`, made
/// smaller while the number of tiles is not a multiple of `threads`, so
/// that the threads share them evenly (with two threads, 3 tiles of 128 x
/// 256 for a 128 x 768 result would leave one thread idle a third of the
/// time; 9 for 128 x 2304, a ninth). One thread needs no balancing.
/// - First the columns, halved down to 64 while the last round would leave
///   more than kMaxIdleShare of the threads' time idle: each tile still
///   reads its slice of B (or, for a linear, transposes it) once, which
///   halving the rows would do twice (bench/HISTORY.md has the
///   measurements). 19 tiles on two threads (Qwen2's 4864-column gated MLP
///   at up to 256 tokens) idle one of them for a twentieth of the time;
///   38 of half the width share evenly.
/// - Then, if the count is still not a multiple and below 4 tiles per
///   thread (too few columns to split), the rows, halved down to 32.
/// A tile is halved only into a multiple of the register tile `registers`.
/// A dynamic number of rows (GPT-2's prefill: tokens) counts as one row of
/// tiles, so its column tiles are balanced; a dynamic number of columns or
/// batches is left alone. With a count that halving cannot make a multiple
/// (3 threads), the columns still get narrower until the idle share is
/// small enough (or the tile 64 wide), the rows until each thread has 4.
std::pair<int64_t, int64_t> getBalancedCacheTile(ArrayRef<int64_t> shape,
                                                 int64_t tileM, int64_t tileN,
                                                 RegisterTile registers,
                                                 unsigned threads) {
  int64_t m = shape[shape.size() - 2], n = shape.back();
  ArrayRef<int64_t> batchDims = shape.drop_back(2);
  if (threads <= 1 || ShapedType::isDynamic(n) ||
      llvm::any_of(batchDims, ShapedType::isDynamic) ||
      (ShapedType::isDynamic(m) && !batchDims.empty()))
    return {tileM, tileN};
  int64_t batch = 1;
  for (int64_t dim : batchDims)
    batch *= dim;
  auto tiles = [&](int64_t rows, int64_t columns) {
    int64_t rowTiles = ShapedType::isDynamic(m) ? 1 : llvm::divideCeil(m, rows);
    return batch * rowTiles * llvm::divideCeil(n, columns);
  };
  auto halves = [](int64_t tile, int64_t multiple) {
    return (tile / 2) % multiple == 0;
  };
  // Not a multiple of the threads, and fewer than tilesPerThread each.
  auto uneven = [&](int64_t tilesPerThread) {
    int64_t count = tiles(tileM, tileN);
    return count % threads != 0 && count < tilesPerThread * threads;
  };
  auto idleShare = [&]() {
    int64_t count = tiles(tileM, tileN);
    int64_t slots = llvm::divideCeil(count, threads) * threads;
    return 1.0 - static_cast<double>(count) / static_cast<double>(slots);
  };
  while (tileN > 64 && halves(tileN, registers.n) && n > tileN / 2 &&
         idleShare() > kMaxIdleShare)
    tileN /= 2;
  // A dynamic m: halving the rows once doubles the row tiles of any m that
  // is a multiple of them.
  if (ShapedType::isDynamic(m)) {
    if (tileM > 32 && halves(tileM, registers.m) && uneven(4))
      tileM /= 2;
    return {tileM, tileN};
  }
  while (tileM > 32 && halves(tileM, registers.m) && m > tileM / 2 && uneven(4))
    tileM /= 2;
  return {tileM, tileN};
}

/// The rows of the cache tile for a result of `shape`: the target's
/// `tileM` when it is taller than 128 (where the L2 holds them: B's block is
/// packed once per tile along m, so taller tiles pack it less often) and
/// each of the `threads` still gets at least 8 tiles of `tileM` x `tileN`;
/// 128 (a multiple of the register rows) otherwise, which balances the
/// threads of a smaller problem better (512^3: 4 tiles, 8 of 128 rows).
/// A dynamic number of rows counts as one row of tiles.
int64_t getRowsForThreads(ArrayRef<int64_t> shape, int64_t tileM, int64_t tileN,
                          RegisterTile registers, unsigned threads) {
  constexpr int64_t kTilesPerThread = 8;
  int64_t shortRows = llvm::alignTo(128, registers.m);
  if (tileM <= shortRows)
    return tileM;
  int64_t m = shape[shape.size() - 2], n = shape.back();
  if (ShapedType::isDynamic(n) ||
      llvm::any_of(shape.drop_back(2), ShapedType::isDynamic))
    return tileM;
  int64_t count = llvm::divideCeil(n, tileN);
  for (int64_t dim : shape.drop_back(2))
    count *= dim;
  if (!ShapedType::isDynamic(m))
    count *= llvm::divideCeil(m, tileM);
  return count >= kTilesPerThread * std::max(threads, 1u) ? tileM : shortRows;
}

/// The largest multiple of `multiple` from `tile` down to `tile` / 2 that
/// divides a static `size` (or `tile` when the size is dynamic or `tile`
/// divides it); a static size up to `tile` itself. A cache tile that
/// divides the problem has a static size in every task: a remainder tile's
/// dynamic size would make its packing copies masked and its register
/// tiles' remainders scalar (N = 1040: tiles of 208 rather than 4 of 256
/// and one of 16; M = 128 with 6-row register tiles: one tile of 128 rows,
/// not of min(132, 128 - i)).
int64_t getDividingTile(int64_t size, int64_t tile, int64_t multiple) {
  if (!ShapedType::isDynamic(size) && size <= tile)
    return size;
  if (ShapedType::isDynamic(size) || size % tile == 0)
    return tile;
  int64_t dividing = getDividingSize(size, tile, multiple);
  return dividing ? dividing : tile;
}

/// getDividingTile for the rows; where no tile divides a static `size`,
/// tiles of about equal size instead (the size over as many tiles as
/// `tile` makes, rounded up to `multiple`): a last tile of a few rows is a
/// task of almost no work that the threads' static split counts as a whole
/// one (M = 1040 with 6-row register tiles: 4 tiles of 210 rows and one of
/// 200, not 4 of 258 and one of 8, which left one of two threads a fifth
/// of the work short). The columns keep their tile: a narrow last column
/// of tiles is what the balancing halves the others into.
int64_t getRowTile(int64_t size, int64_t tile, int64_t multiple) {
  int64_t rows = getDividingTile(size, tile, multiple);
  if (ShapedType::isDynamic(size) || size % rows == 0)
    return rows;
  int64_t count = llvm::divideCeil(size, rows);
  int64_t even = llvm::alignTo(llvm::divideCeil(size, count), multiple);
  return std::min(even, rows);
}

/// A slice of B transposed per cache tile is transposed once per tile along
/// m. Up to this many m tiles that is still faster than one separate copy
/// (measured on GPT-2 blocks: seq 128, one m tile, 23.9 -> 19.5 ms with 1
/// thread; seq 512, four, 80.8 -> 79.5 ms); a copy made once is cheaper for
/// long sequences, whose FMAs per block grow with m.
constexpr int64_t kMaxRowTilesForTransposeTiles = 4;

/// Whether a contraction's result has at most kMaxRowTilesForTransposeTiles
/// cache tiles along m (a static m).
bool hasFewRowTiles(linalg::LinalgOp contraction, int64_t tileM) {
  auto type = cast<ShapedType>(contraction->getResult(0).getType());
  int64_t m = type.getShape()[type.getRank() - 2];
  return !ShapedType::isDynamic(m) &&
         m <= kMaxRowTilesForTransposeTiles * tileM;
}

/// Whether the pipeline lowers every op of the body on vectors: arith, and the
/// math ops that math-to-llvm makes LLVM intrinsics, and exp/tanh/erf, which
/// transformer-cpu-codegen makes polynomials. Others become libm calls only
/// on scalars, so their epilogues are fused but left to scalar loops.
bool hasVectorLowering(linalg::LinalgOp op) {
  return llvm::all_of(op.getBlock()->without_terminator(), [](Operation &op) {
    if (isa<arith::ArithDialect>(op.getDialect()))
      return true;
    return isa<math::AbsFOp, math::CeilOp, math::CopySignOp, math::CosOp,
               math::ErfOp, math::ExpOp, math::Exp2Op, math::ExpM1Op,
               math::FloorOp, math::FmaOp, math::LogOp, math::Log10Op,
               math::Log1pOp, math::Log2Op, math::PowFOp, math::RoundEvenOp,
               math::RoundOp, math::RsqrtOp, math::SinOp, math::SqrtOp,
               math::TanhOp, math::TruncOp>(op);
  });
}

/// When `op` reads `value` as an input with the identity map and ignores its
/// own init, rewrites it to update `value` in place (value becomes the init),
/// so that the fused epilogue writes the contraction's tile and needs no
/// buffer of its own. Returns the op to continue with.
linalg::GenericOp updateInPlace(RewriterBase &rewriter, linalg::GenericOp op,
                                Value value) {
  if (!isElementwiseIgnoringInit(op) ||
      op.getDpsInits()[0].getType() != value.getType())
    return op;
  OpOperand *use = nullptr;
  for (OpOperand *input : op.getDpsInputOperands())
    if (input->get() == value && op.getMatchingIndexingMap(input).isIdentity())
      use = input;
  if (!use)
    return op;
  // The inputs but `use`, in order; `use`'s argument and the unused init's
  // stand for the new init.
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  SmallVector<unsigned> argumentOf;
  unsigned numInputs = op.getNumDpsInputs() - 1;
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (input == use) {
      argumentOf.push_back(numInputs);
      continue;
    }
    argumentOf.push_back(inputs.size());
    inputs.push_back(input->get());
    maps.push_back(op.getMatchingIndexingMap(input));
  }
  maps.push_back(op.getMatchingIndexingMap(op.getDpsInitOperand(0)));
  argumentOf.push_back(numInputs);
  return rebuildElementwise(rewriter, op, inputs, value, maps, argumentOf);
}

/// The element-wise ops that produce `op`'s accumulator (a zero fill, a bias
/// broadcast), each the init's producer of the one before: what is fused
/// into the cache tile with it.
SmallVector<Operation *> getInitProducers(linalg::LinalgOp op) {
  SmallVector<Operation *> producers;
  Value init = op.getDpsInits()[0];
  while (auto producer = init.getDefiningOp<linalg::LinalgOp>()) {
    if (!isElementwiseOnTensors(producer))
      break;
    producers.push_back(producer);
    init = producer.getDpsInits()[0];
  }
  return producers;
}

/// Where the consumers of `contraction` now update its accumulator in place,
/// the accumulator starts in their former `destination` (a kernel argument:
/// the buffer the caller allocated for the result) rather than in a
/// tensor.empty of the kernel's own (a gated MLP's two accumulators may
/// share one), which bufferization would allocate in the kernel on every
/// call (returning it, the caller's buffer unused).
void writeAccumulatorIntoDestination(RewriterBase &rewriter,
                                     linalg::LinalgOp contraction,
                                     Value destination) {
  if (!destination || !isa<BlockArgument>(destination))
    return;
  OpOperand *init = contraction.getDpsInitOperand(0);
  for (Operation *producer : getInitProducers(contraction)) {
    // A fill shared with another contraction (a gated MLP's sibling) would
    // start that one in the destination too.
    if (!producer->hasOneUse())
      return;
    init = cast<linalg::LinalgOp>(producer).getDpsInitOperand(0);
  }
  auto empty = init->get().getDefiningOp<tensor::EmptyOp>();
  if (!empty || empty.getType() != destination.getType())
    return;
  rewriter.modifyOpInPlace(init->getOwner(), [&] { init->set(destination); });
  if (empty->use_empty())
    rewriter.eraseOp(empty);
}

/// Returns the op of `ops` tagged `tag`, if any.
Operation *findTagged(ArrayRef<Operation *> ops, StringRef tag) {
  for (Operation *op : ops)
    if (auto attr = op->getAttrOfType<StringAttr>(kContractionAttrName);
        attr && attr.getValue() == tag)
      return op;
  return nullptr;
}

/// The contraction of a cache tile tiled along k, its last loop.
struct KBlocks {
  linalg::LinalgOp contraction;
  /// The loop over the k blocks.
  Operation *loop;
};

/// Tiles `tile` (a cache tile's contraction) along k in blocks of `block`
/// (the last of them shorter where `block` does not divide k) and replaces
/// it by the loop.
FailureOr<KBlocks> tileAlongK(RewriterBase &rewriter, Operation *tile,
                              int64_t block) {
  auto contraction = cast<linalg::LinalgOp>(tile);
  SmallVector<OpFoldResult> sizes(contraction.getNumLoops() - 1,
                                  rewriter.getIndexAttr(0));
  sizes.push_back(rewriter.getIndexAttr(block));
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(sizes);
  rewriter.setInsertionPoint(tile);
  FailureOr<scf::SCFTilingResult> blocked =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(tile), tiling);
  if (failed(blocked) || blocked->loops.empty())
    return failure();
  rewriter.replaceOp(tile, blocked->replacements);
  return KBlocks{cast<linalg::LinalgOp>(blocked->tiledOps.front()),
                 blocked->loops.front()};
}

/// In a cache tile whose contraction reads a transposed slice of B made in
/// the tile, tiles the contraction along k by the schedule's k block
/// (`blockK`, the target's: CPUTarget::contractionCacheTile) and
/// makes each block's part of the transposed slice in that k step: the
/// block is read while still in L2, instead of a K x 256 slice (3 MiB for
/// K = 3072) written whole and read back. `tileTag` and `transposeTileTag`
/// are the tags of the contraction tile and of the transposed slice.
void blockTransposeAlongK(RewriterBase &rewriter,
                          const scf::SCFTileAndFuseResult &fused,
                          StringRef tileTag, StringRef transposeTileTag,
                          int64_t blockK) {
  Operation *tile = findTagged(fused.tiledAndFusedOps.getArrayRef(), tileTag);
  Operation *transposeTile =
      findTagged(fused.tiledAndFusedOps.getArrayRef(), transposeTileTag);
  if (!tile || !transposeTile)
    return;
  auto contraction = cast<linalg::LinalgOp>(tile);
  int64_t kLoop = contraction.getNumLoops() - 1;
  int64_t k = contraction.getStaticLoopRanges()[kLoop];
  if (ShapedType::isDynamic(k) || k <= blockK)
    return;
  SmallVector<OpFoldResult> sizes(kLoop, rewriter.getIndexAttr(0));
  sizes.push_back(rewriter.getIndexAttr(blockK));
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(sizes);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (producer.getOwner() != transposeTile)
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  rewriter.setInsertionPoint(tile);
  FailureOr<scf::SCFTileAndFuseResult> blocked =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(tile), options);
  if (failed(blocked) || blocked->loops.empty())
    return;
  for (auto [value, replacement] : blocked->replacements)
    rewriter.replaceAllUsesWith(value, replacement);
  rewriter.eraseOp(tile);
  // Each k step transposes into the same buffer of one block, made once per
  // cache tile, rather than into its own part of a whole copy.
  if (Operation *blockTranspose = findTagged(
          blocked->tiledAndFusedOps.getArrayRef(), transposeTileTag)) {
    OpOperand &init =
        *cast<linalg::LinalgOp>(blockTranspose).getDpsInitOperand(0);
    if (cast<RankedTensorType>(init.get().getType()).hasStaticShape())
      setTileTemporary(rewriter, init, blocked->loops.front());
  }
  eraseUnusedSliceUsers(rewriter, transposeTile);
  if (transposeTile->use_empty()) {
    Value init = cast<linalg::LinalgOp>(transposeTile).getDpsInits()[0];
    rewriter.eraseOp(transposeTile);
    eraseUnusedSlices(rewriter, init);
  }
}

/// In a cache tile whose contraction reads a transposed slice of B made in
/// the tile (a linear's n x k weight; `tileTag` and `transposeTileTag` as in
/// blockTransposeAlongK), makes the slice per k block in panels of the
/// register tile's width `panelWidth` ([n / w, k block, w], by vector code:
/// transposeIntoPanels) and has the contraction read it through the panel
/// map, for transformer-cpu-panel-contractions to compute panel by panel.
/// The schedule then copies nothing: a k x n block is copied again into
/// each register tile's panel (the copies and the transposes were 17% of a
/// 128 x 768 -> 3072 linear's samples, the FMA loop 83%). The k block is
/// the largest multiple of the target's f32 `lanes` from `blockK` down to
/// its half that divides K (every block the same static size, as the panel
/// contractions need). False, with nothing changed, unless the slice is a
/// static f32 [n, K] of whole panels and such a block exists.
bool transposeIntoPanelsPerKBlock(RewriterBase &rewriter,
                                  const scf::SCFTileAndFuseResult &fused,
                                  StringRef tileTag, StringRef transposeTileTag,
                                  int64_t blockK, int64_t lanes,
                                  int64_t panelWidth) {
  Operation *tile = findTagged(fused.tiledAndFusedOps.getArrayRef(), tileTag);
  auto transposeTile = dyn_cast_or_null<linalg::TransposeOp>(
      findTagged(fused.tiledAndFusedOps.getArrayRef(), transposeTileTag));
  if (!tile || !transposeTile || lanes <= 0 || panelWidth <= 0 ||
      panelWidth % lanes != 0)
    return false;
  auto contraction = cast<linalg::LinalgOp>(tile);
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr dn = getAffineDimExpr(1, ctx), dk = getAffineDimExpr(2, ctx);
  auto sourceType = cast<RankedTensorType>(transposeTile.getInput().getType());
  if (contraction.getNumLoops() != 3 || !hasMulAddBody(contraction) ||
      contraction.getDpsInputs()[1] != transposeTile->getResult(0) ||
      contraction.getIndexingMapsArray()[1] !=
          AffineMap::get(3, 0, {dk, dn}, ctx) ||
      sourceType.getRank() != 2 || !sourceType.hasStaticShape() ||
      !sourceType.getElementType().isF32())
    return false;
  int64_t columns = sourceType.getDimSize(0), depth = sourceType.getDimSize(1);
  if (columns % panelWidth != 0 || depth % lanes != 0)
    return false;
  int64_t block =
      depth <= blockK ? depth : getDividingSize(depth, blockK, lanes);
  if (block == 0)
    return false;
  Location loc = contraction.getLoc();
  Operation *bufferPoint = tile;
  if (depth > block) {
    FailureOr<KBlocks> blocked = tileAlongK(rewriter, tile, block);
    if (failed(blocked))
      return false;
    contraction = blocked->contraction;
    bufferPoint = blocked->loop;
  }
  // The block's first k: B is the whole transposed slice, or a slice of it
  // at (k0, 0).
  Value old = contraction.getDpsInputs()[1];
  OpFoldResult k0 = rewriter.getIndexAttr(0);
  if (auto slice = old.getDefiningOp<tensor::ExtractSliceOp>();
      slice && slice.getSource() == transposeTile->getResult(0))
    k0 = slice.getMixedOffsets()[0];
  else if (old != transposeTile->getResult(0))
    return true; // Blocked, still reading the whole transposed slice.
  // One buffer of panels per cache tile, written anew in each k block.
  rewriter.setInsertionPoint(bufferPoint);
  Value init = tensor::EmptyOp::create(
      rewriter, loc, ArrayRef<int64_t>{columns / panelWidth, block, panelWidth},
      sourceType.getElementType());
  rewriter.setInsertionPoint(contraction);
  OpFoldResult one = rewriter.getIndexAttr(1);
  Value source = tensor::ExtractSliceOp::create(
      rewriter, loc, transposeTile.getInput(),
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0), k0},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(columns),
                             rewriter.getIndexAttr(block)},
      ArrayRef<OpFoldResult>{one, one});
  Value panels = transposeIntoPanels(rewriter, loc, source, init, lanes);
  if (failed(readFromPanels(rewriter, contraction, panels, panelWidth)))
    return true;
  eraseUnusedSlices(rewriter, old);
  if (transposeTile->use_empty()) {
    Value transposeInit = transposeTile.getInit();
    rewriter.eraseOp(transposeTile);
    eraseUnusedSlices(rewriter, transposeInit);
  }
  return true;
}

/// The k block in which dequantizePerKBlock writes a B of `depth` rows (a
/// multiple of the quantization block) in panels: the depth itself up to
/// the target's `blockK`, else a block that divides it (every block the
/// same static size, as the panel contractions need; getDividingSize); 0
/// when none does, and such a K keeps the k x n buffer and its rest block.
int64_t getQuantizedKBlock(int64_t depth, int64_t blockK) {
  return depth <= blockK ? depth
                         : getDividingSize(depth, blockK, kQuantBlockSize);
}

/// Whether dequantizePerKBlock writes the k blocks of `op`'s dequantized B in
/// panels in every cache tile of `tileN` columns (`op` untiled: every tile
/// is whole).
bool dequantizesInPanels(linalg::LinalgOp op, int64_t tileN, int64_t blockK,
                         int64_t lanes, int64_t panelWidth) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.size() != 3 || panelWidth <= 0 || panelWidth % lanes != 0 ||
      ShapedType::isDynamic(ranges[1]) || ranges[1] % tileN != 0 ||
      tileN % panelWidth != 0 || ShapedType::isDynamic(ranges[2]) ||
      ranges[2] % kQuantBlockSize != 0 || blockK < kQuantBlockSize ||
      !hasMulAddBody(op))
    return false;
  MLIRContext *ctx = op.getContext();
  if (op.getIndexingMapsArray()[1] !=
      AffineMap::get(3, 0, {getAffineDimExpr(2, ctx), getAffineDimExpr(1, ctx)},
                     ctx))
    return false;
  return getQuantizedKBlock(ranges[2], blockK) > 0;
}

/// In a cache tile whose contraction reads a slice of a dequantized B (the
/// prepare pass's generic tagged "dequantize"), tiles the contraction along
/// k by the k block `blockK` (a multiple of the 32 of a quantized block) and
/// makes each block's slice of B from the weight's blocks right before it
/// (buildTransposedDequantizeSlice), into a buffer of one block made once
/// per cache tile: B is then read from memory as blocks (a quarter or an
/// eighth of f32's bytes) and never exists whole as f32. `tile` is the
/// contraction tile. Returns whether B is made per block.
///
/// Where the tile's columns are whole panels of the register tile's width
/// `panelWidth` and K is static, the block is written in panels
/// ([n / w, k block, w], the k block the largest multiple of 32 up to
/// `blockK` that divides K) and the contraction reads it through the panel
/// map, for transformer-cpu-panel-contractions to compute panel by panel:
/// the schedule then copies nothing (a block in k x n order is copied
/// again into each register tile's panel, 16% of a q8_0 prefill's
/// contraction samples).
bool dequantizePerKBlock(RewriterBase &rewriter, Operation *tile,
                         Operation *dequantization, int64_t blockK,
                         int64_t lanes, int64_t panelWidth) {
  std::optional<DequantizedWeight> weight =
      getDequantizedWeight(dequantization->getResult(0));
  if (!tile || !weight || blockK % kQuantBlockSize != 0)
    return false;
  auto contraction = cast<linalg::LinalgOp>(tile);
  // B's slice: extract_slice ops (unit strides) back to the dequantization.
  auto getSlices = [&](linalg::LinalgOp op) {
    SmallVector<tensor::ExtractSliceOp> slices;
    Value b = op.getDpsInputs()[1];
    while (auto slice = b.getDefiningOp<tensor::ExtractSliceOp>()) {
      if (!slice.hasUnitStride() ||
          slice.getSourceType().getRank() != slice.getResultType().getRank())
        return SmallVector<tensor::ExtractSliceOp>();
      slices.push_back(slice);
      b = slice.getSource();
    }
    if (b.getDefiningOp() != dequantization)
      slices.clear();
    return slices;
  };
  if (getSlices(contraction).empty())
    return false;
  Operation *bufferPoint = tile;
  int64_t kLoop = contraction.getNumLoops() - 1;
  SmallVector<int64_t> ranges = contraction.getStaticLoopRanges();
  int64_t depth = ranges[kLoop];
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr dn = getAffineDimExpr(1, ctx), dk = getAffineDimExpr(2, ctx);
  bool inPanels = panelWidth > 0 && panelWidth % lanes == 0 &&
                  ranges.size() == 3 && !ShapedType::isDynamic(ranges[1]) &&
                  ranges[1] % panelWidth == 0 &&
                  !ShapedType::isDynamic(depth) &&
                  depth % kQuantBlockSize == 0 && hasMulAddBody(contraction) &&
                  contraction.getIndexingMapsArray()[1] ==
                      AffineMap::get(3, 0, {dk, dn}, ctx);
  if (inPanels) {
    if (int64_t block = getQuantizedKBlock(depth, blockK))
      blockK = block;
    else
      inPanels = false;
  }
  if (ShapedType::isDynamic(depth) || depth > blockK) {
    FailureOr<KBlocks> blocked = tileAlongK(rewriter, tile, blockK);
    if (failed(blocked))
      return false;
    contraction = blocked->contraction;
    bufferPoint = blocked->loop;
  }
  SmallVector<tensor::ExtractSliceOp> slices = getSlices(contraction);
  if (slices.empty())
    return false;
  // The block's place in the whole B, and its largest size.
  Location loc = contraction.getLoc();
  rewriter.setInsertionPoint(contraction);
  AffineExpr s0 = rewriter.getAffineSymbolExpr(0),
             s1 = rewriter.getAffineSymbolExpr(1);
  SmallVector<OpFoldResult> offsets(2, rewriter.getIndexAttr(0));
  for (tensor::ExtractSliceOp slice : slices)
    for (auto [offset, sliceOffset] :
         llvm::zip(offsets, slice.getMixedOffsets()))
      offset = affine::makeComposedFoldedAffineApply(
          rewriter, loc, AffineMap::get(0, 2, s0 + s1), {offset, sliceOffset});
  SmallVector<OpFoldResult> sizes = slices.front().getMixedSizes();
  FailureOr<SmallVector<int64_t>> bounds = getUpperBounds(sizes);
  if (failed(bounds))
    return false;
  if (inPanels) {
    rewriter.setInsertionPoint(bufferPoint);
    Value init = tensor::EmptyOp::create(
        rewriter, loc,
        ArrayRef<int64_t>{(*bounds)[1] / panelWidth, (*bounds)[0], panelWidth},
        rewriter.getF32Type());
    rewriter.setInsertionPoint(contraction);
    Value panels = buildTransposedDequantizeSlice(
        rewriter, loc, *weight, init, offsets[0], offsets[1], lanes);
    Value old = contraction.getDpsInputs()[1];
    if (failed(readFromPanels(rewriter, contraction, panels, panelWidth)))
      return false;
    eraseUnusedSlices(rewriter, old);
    return true;
  }
  rewriter.setInsertionPoint(bufferPoint);
  Value init =
      tensor::EmptyOp::create(rewriter, loc, *bounds, rewriter.getF32Type());
  rewriter.setInsertionPoint(contraction);
  if (llvm::any_of(
          sizes, [](OpFoldResult size) { return !getConstantIntValue(size); }))
    init = tensor::ExtractSliceOp::create(
        rewriter, loc, init,
        SmallVector<OpFoldResult>(2, rewriter.getIndexAttr(0)), sizes,
        SmallVector<OpFoldResult>(2, rewriter.getIndexAttr(1)));
  Value block = buildTransposedDequantizeSlice(rewriter, loc, *weight, init,
                                               offsets[0], offsets[1], lanes);
  OpOperand *b = contraction.getDpsInputOperand(1);
  Value old = b->get();
  rewriter.modifyOpInPlace(contraction, [&] { b->set(block); });
  eraseUnusedSlices(rewriter, old);
  return true;
}

/// Replaces the dequantizations tagged "dequantize" that no cache tile made
/// per block by a whole f32 copy made with vector code
/// (buildTransposedDequantizeKernel), and erases the unused ones.
void lowerWholeDequantizations(RewriterBase &rewriter, Operation *root,
                               int64_t lanes) {
  SmallVector<linalg::GenericOp> generics;
  root->walk([&](linalg::GenericOp generic) {
    auto tag = generic->getAttrOfType<StringAttr>(kContractionAttrName);
    if (tag && tag.getValue() == "dequantize")
      generics.push_back(generic);
  });
  for (linalg::GenericOp generic : generics) {
    std::optional<DequantizedWeight> weight =
        getDequantizedWeight(generic->getResult(0));
    if (generic->use_empty()) {
      rewriter.eraseOp(generic);
      continue;
    }
    if (!weight)
      continue;
    rewriter.setInsertionPoint(generic);
    rewriter.replaceOp(generic, buildTransposedDequantizeKernel(
                                    rewriter, generic.getLoc(), *weight,
                                    generic.getDpsInits()[0], lanes));
  }
}

/// Marks a sibling contraction (getSibling) through tile-and-fuse, so that
/// its tiled clone can be found.
constexpr llvm::StringLiteral kSiblingAttrName = "transformer.fused_sibling";

/// Whether `op` reads B in panels of `width` columns, over a static K and a
/// static number of columns that is a multiple of the width:
/// transformer-cpu-panel-contractions then gives its cache tiles their own
/// loops over k blocks and panels, so that a tile may hold two of them (the
/// schedule's packing expects one contraction per tile).
bool readsWholePanels(linalg::LinalgOp op, int64_t width) {
  auto type = cast<ShapedType>(op->getResult(0).getType());
  auto a = cast<ShapedType>(op.getDpsInputs()[0].getType());
  return width > 0 && getPanelWidth(op) == width && type.getRank() == 2 &&
         !type.isDynamicDim(1) && type.getDimSize(1) % width == 0 &&
         a.getRank() == 2 && !a.isDynamicDim(1);
}

/// The dequantization (the prepare pass's generic tagged "dequantize") that
/// only `sibling` reads as its B, or null.
Operation *getSiblingDequantization(linalg::LinalgOp sibling) {
  auto producer = sibling.getDpsInputs()[1].getDefiningOp<linalg::GenericOp>();
  auto tag = producer
                 ? producer->getAttrOfType<StringAttr>(kContractionAttrName)
                 : StringAttr();
  return tag && tag.getValue() == "dequantize" && producer->hasOneUse()
             ? producer.getOperation()
             : nullptr;
}

/// A contraction tagged `tag` that `consumer` (an element-wise op of
/// `contraction`'s epilogue) reads directly as an input, that reads the same
/// A as `contraction` and has the same result type, and that nothing else
/// uses: the other projection of a gated MLP (silu(gate) * up), which
/// transformer-outline-kernels put in the same kernel. Fused into the same
/// cache tiles, its accumulator is a temporary of the tile's size
/// (giveSiblingTileTemporary) rather than a whole result written to memory
/// and read back by the epilogue. Only where both read whole panels
/// (readsWholePanels) or, `dequantized`, both read B dequantized from
/// blocks (which dequantizesInPanels must then accept for both).
linalg::LinalgOp getSibling(linalg::LinalgOp contraction,
                            linalg::GenericOp consumer, StringAttr tag,
                            bool dequantized) {
  int64_t width = getPanelWidth(contraction);
  if (!dequantized && !readsWholePanels(contraction, width))
    return {};
  for (OpOperand *input : consumer.getDpsInputOperands()) {
    auto sibling = input->get().getDefiningOp<linalg::LinalgOp>();
    if (!sibling || sibling == contraction || !input->get().hasOneUse() ||
        sibling->getAttrOfType<StringAttr>(kContractionAttrName) != tag ||
        !sibling.hasPureTensorSemantics() ||
        sibling.getDpsInputs()[0] != contraction.getDpsInputs()[0] ||
        sibling->getResult(0).getType() !=
            contraction->getResult(0).getType() ||
        !consumer.getMatchingIndexingMap(input).isIdentity() ||
        (dequantized ? !getSiblingDequantization(sibling)
                     : !readsWholePanels(sibling, width)))
      continue;
    return sibling;
  }
  return {};
}

struct FuseEpiloguesPass
    : public transformer::impl::TransformerCPUFuseEpiloguesPassBase<
          FuseEpiloguesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> contractions;
    getOperation().walk([&](linalg::LinalgOp op) {
      auto tag = op->getAttrOfType<StringAttr>(kContractionAttrName);
      if (tag && (tag.getValue() == "mnk" || tag.getValue() == "bmnk") &&
          op.hasPureTensorSemantics())
        contractions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    CPUTarget target = CPUTarget::forOp(getOperation());
    CacheTile cache = target.contractionCacheTile();
    registerTile = target.contractionRegisterTile();
    tileM = cacheTileM > 0 ? cacheTileM : cache.m;
    tileN = cacheTileN > 0 ? cacheTileN : cache.n;
    blockK = cache.k;
    threads = target.threads;
    lanes = target.f32Lanes();
    l2Bytes = target.l2Bytes;
    for (linalg::LinalgOp op : contractions)
      if (!fusedSiblings.contains(op))
        fuse(rewriter, op);
    lowerWholeDequantizations(rewriter, getOperation(), lanes);
    // Tiling leaves the slices of what it replaced (a fused contraction's
    // zero-filled accumulator, sliced per tile) without uses. Bufferization
    // would give each dead tensor a buffer and fill it, on one thread, on
    // every call: a gated MLP's 512 x 4864 f32 accumulator was 10 MB
    // zeroed per layer, then freed unread.
    (void)runRegionDCE(rewriter, getOperation()->getRegions());
  }

  /// The cache tile before balancing (the options, or the target's) and the
  /// schedule's k block.
  int64_t tileM = 0, tileN = 0, blockK = 0;
  unsigned threads = 1;
  /// The target's f32 lanes (the dequantization's transposed tiles).
  int64_t lanes = 16;
  /// The target's L2 (per core): results beyond it accumulate in tile
  /// temporaries.
  uint64_t l2Bytes = 0;
  /// The target's register tile, of which cache tiles are multiples.
  RegisterTile registerTile;
  /// Contractions fused into another's cache tiles as its sibling (erased).
  llvm::SmallPtrSet<Operation *, 4> fusedSiblings;

  /// Whether a result of `type` can be larger than the L2, where a cache
  /// tile's slice of it is out of cache when the tile starts (see
  /// accumulateInTileTemporary): a dynamic size counts as large (a prompt's
  /// tokens); a result that fits may still be in cache from its last use,
  /// and would only gain a copy.
  bool exceedsL2(ShapedType type) const {
    if (!type.hasStaticShape())
      return true;
    uint64_t bytes = type.getNumElements() *
                     std::max<uint64_t>(1, type.getElementTypeBitWidth() / 8);
    return bytes > l2Bytes;
  }

  void fuse(RewriterBase &rewriter, linalg::LinalgOp contraction) {
    StringAttr tag =
        contraction->getAttrOfType<StringAttr>(kContractionAttrName);
    bool batched = tag.getValue() == "bmnk";
    StringAttr fusedTag =
        rewriter.getStringAttr(batched ? "bepilogue" : "epilogue");
    // What is fused: the contraction, the element-wise ops that produce its
    // accumulator's initial value, and the chain of element-wise consumers
    // whose only use is the next one.
    llvm::SmallPtrSet<Operation *, 8> fusable{contraction};
    SmallVector<Operation *> producers = getInitProducers(contraction);
    SmallVector<Operation *> tagged(producers), consumers;
    fusable.insert_range(producers);
    // B's transposed copy (prepare pass, tag "transpose"), made per cache
    // tile instead of in a pass of its own when there are few tiles along m:
    // each tile then transposes the slice of B it reads, on its own thread
    // and into a buffer that stays in cache, rather than writing the whole
    // copy to memory and reading it back.
    StringAttr transposeTag =
        rewriter.getStringAttr(batched ? "btranspose" : "transpose");
    StringAttr transposeTileTag =
        rewriter.getStringAttr(transposeTag.getValue() + "_tile");
    Operation *fusedTranspose = nullptr;
    Value rhs = contraction.getDpsInputs()[1];
    auto transpose = rhs.getDefiningOp<linalg::LinalgOp>();
    if (transpose && transpose->hasOneUse() &&
        transpose->getAttrOfType<StringAttr>(kContractionAttrName) ==
            transposeTag &&
        hasFewRowTiles(contraction,
                       getRowsForThreads(
                           cast<ShapedType>(contraction->getResult(0).getType())
                               .getShape(),
                           tileM, tileN, registerTile, threads))) {
      fusable.insert(transpose);
      fusedTranspose = transpose;
      transpose->setAttr(kContractionAttrName, transposeTileTag);
    }
    // B dequantized from blocks (prepare pass, tag "dequantize"): made per
    // cache tile and k block (dequantizePerKBlock) rather than as a whole
    // f32 copy written to memory and read back; not when a static m has so
    // many tiles that each would make it again.
    Operation *dequantization = nullptr;
    if (auto producer = rhs.getDefiningOp<linalg::GenericOp>();
        producer && producer->hasOneUse() && !batched) {
      auto producerTag =
          producer->getAttrOfType<StringAttr>(kContractionAttrName);
      int64_t m =
          cast<ShapedType>(contraction->getResult(0).getType()).getDimSize(0);
      if (producerTag && producerTag.getValue() == "dequantize" &&
          (ShapedType::isDynamic(m) ||
           hasFewRowTiles(
               contraction,
               getRowsForThreads(
                   cast<ShapedType>(contraction->getResult(0).getType())
                       .getShape(),
                   tileM, tileN, registerTile, threads))))
        dequantization = producer;
    }
    Operation *root = contraction;
    Value result = contraction->getResult(0);
    // The init that the last consumer updated in place no longer uses: the
    // buffer the caller passes for the result (OutlineKernels).
    Value destination;
    linalg::LinalgOp sibling;
    SmallVector<Operation *> siblingProducers;
    while (result.hasOneUse()) {
      auto consumer = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
      if (!consumer || !isElementwiseOnTensors(consumer) ||
          consumer->getResult(0).getType() != result.getType() ||
          consumer->getBlock() != contraction->getBlock())
        break;
      Value consumerInit = consumer.getDpsInits()[0];
      linalg::GenericOp updated = updateInPlace(rewriter, consumer, result);
      if (updated != consumer)
        destination = consumerInit;
      consumer = updated;
      if (!sibling && !fusedTranspose && !batched)
        sibling = getSibling(contraction, consumer, tag, dequantization);
      fusable.insert(consumer);
      tagged.push_back(consumer);
      consumers.push_back(consumer);
      root = consumer;
      result = consumer->getResult(0);
    }

    writeAccumulatorIntoDestination(rewriter, contraction, destination);

    auto resultType = cast<ShapedType>(result.getType());
    int64_t rank = resultType.getRank();
    SmallVector<OpFoldResult> sizes(rank - 2, rewriter.getIndexAttr(1));
    ArrayRef<int64_t> shape = resultType.getShape();
    int64_t rows =
        getRowsForThreads(shape, tileM, tileN, registerTile, threads);
    auto [balancedM, balancedN] = getBalancedCacheTile(
        shape, getRowTile(shape[rank - 2], rows, registerTile.m),
        getDividingTile(shape[rank - 1], tileN, registerTile.n), registerTile,
        threads);
    sizes.push_back(rewriter.getIndexAttr(balancedM));
    sizes.push_back(rewriter.getIndexAttr(balancedN));
    // Both dequantized B must be made in panels, for the tile's two
    // contractions to get loops of their own.
    if (sibling && dequantization &&
        (!dequantizesInPanels(contraction, balancedN, blockK, lanes,
                              registerTile.n) ||
         !dequantizesInPanels(sibling, balancedN, blockK, lanes,
                              registerTile.n)))
      sibling = {};
    Operation *siblingDequantization =
        sibling && dequantization ? getSiblingDequantization(sibling) : nullptr;
    if (sibling) {
      fusable.insert(sibling);
      siblingProducers = getInitProducers(sibling);
      fusable.insert_range(siblingProducers);
      llvm::append_range(tagged, siblingProducers);
    }
    // The contraction's loops go on past the result's (k): not tiled here.
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(sizes);
    // Tiles of too little work for a fork and join run on the calling
    // thread: plain loops, not an scf.forall.
    tiling.setLoopType(isContractionWorthThreads(contraction)
                           ? scf::SCFTilingOptions::LoopType::ForallOp
                           : scf::SCFTilingOptions::LoopType::ForOp);
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (!fusable.contains(producer.getOwner()))
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
    for (Operation *op : tagged)
      if (hasVectorLowering(cast<linalg::LinalgOp>(op)))
        op->setAttr(kContractionAttrName, fusedTag);
    // The tiled contraction is a cache tile: the schedule only tiles it for
    // k and registers.
    contraction->setAttr(kContractionAttrName,
                         rewriter.getStringAttr(tag.getValue() + "_tile"));
    if (sibling) {
      sibling->setAttr(kContractionAttrName,
                       rewriter.getStringAttr(tag.getValue() + "_tile"));
      sibling->setAttr(kSiblingAttrName, rewriter.getUnitAttr());
    }
    rewriter.setInsertionPoint(root);
    FailureOr<scf::SCFTileAndFuseResult> fused =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(root), options);
    if (failed(fused)) {
      // Left for the schedule as it was (untiled, not fused).
      for (Operation *op : tagged)
        op->removeAttr(kContractionAttrName);
      contraction->setAttr(kContractionAttrName, tag);
      if (fusedTranspose)
        fusedTranspose->setAttr(kContractionAttrName, transposeTag);
      if (sibling) {
        sibling->setAttr(kContractionAttrName, tag);
        sibling->removeAttr(kSiblingAttrName);
      }
      return;
    }
    for (auto [value, replacement] : fused->replacements)
      rewriter.replaceAllUsesWith(value, replacement);
    // The tiles, found before dequantizePerKBlock replaces them.
    Operation *siblingTile = nullptr, *mainTile = nullptr;
    for (Operation *op : fused->tiledAndFusedOps) {
      auto opTag = op->getAttrOfType<StringAttr>(kContractionAttrName);
      if (op->hasAttr(kSiblingAttrName))
        siblingTile = op;
      else if (opTag && opTag.getValue() == (tag.getValue() + "_tile").str())
        mainTile = op;
    }
    if (siblingTile) {
      siblingTile->removeAttr(kSiblingAttrName);
      giveSiblingTileTemporary(rewriter, cast<linalg::LinalgOp>(siblingTile),
                               fused->loops.front());
    }
    // The tile's last op: the one whose result the loop inserts.
    if (auto forall =
            dyn_cast<scf::ForallOp>(fused->loops.front().getOperation());
        forall && mainTile && !batched && exceedsL2(resultType)) {
      Operation *rootTile = nullptr;
      for (Operation &op : forall.getTerminator().getYieldingOps())
        if (auto insert = dyn_cast<tensor::ParallelInsertSliceOp>(op))
          rootTile = insert.getSource().getDefiningOp();
      // The list of the tile's ops must not keep a replaced root.
      if (rootTile)
        if (Operation *replacement = accumulateInTileTemporary(
                rewriter, cast<linalg::LinalgOp>(mainTile), rootTile, forall)) {
          fused->tiledAndFusedOps.remove(rootTile);
          fused->tiledAndFusedOps.insert(replacement);
        }
    }
    if (fusedTranspose &&
        !transposeIntoPanelsPerKBlock(
            rewriter, *fused, (tag.getValue() + "_tile").str(),
            transposeTileTag.getValue(), blockK, lanes, registerTile.n))
      blockTransposeAlongK(rewriter, *fused, (tag.getValue() + "_tile").str(),
                           transposeTileTag.getValue(), blockK);
    if (dequantization && mainTile)
      dequantizePerKBlock(rewriter, mainTile, dequantization, blockK, lanes,
                          registerTile.n);
    if (siblingDequantization && siblingTile)
      dequantizePerKBlock(rewriter, siblingTile, siblingDequantization, blockK,
                          lanes, registerTile.n);
    // The tiled ops carry the tags (cloned attributes); the originals are dead
    // unless something else uses them, and then they are lowered as before.
    contraction->setAttr(kContractionAttrName, tag);
    for (Operation *op : tagged)
      op->removeAttr(kContractionAttrName);
    SmallVector<Operation *> originals(consumers.rbegin(), consumers.rend());
    originals.push_back(contraction);
    llvm::append_range(originals, producers);
    if (sibling) {
      sibling->setAttr(kContractionAttrName, tag);
      sibling->removeAttr(kSiblingAttrName);
      // Tile-and-fuse leaves the consumer's dead slice of it behind.
      eraseUnusedSliceUsers(rewriter, sibling);
      originals.push_back(sibling);
      llvm::append_range(originals, siblingProducers);
    }
    if (fusedTranspose) {
      // Tile-and-fuse leaves a dead slice of the whole copy behind.
      eraseUnusedSliceUsers(rewriter, fusedTranspose);
      originals.push_back(fusedTranspose);
    }
    for (Operation *op : originals) {
      replaceDimsOfResults(rewriter, op);
      if (op->use_empty()) {
        if (op == sibling.getOperation())
          fusedSiblings.insert(op);
        rewriter.eraseOp(op);
      }
    }
  }
};

} // namespace
