//===- PrefetchNextKBlock.cpp - Prefetch B's next k block -----------------===//
//
// A register tile's k loop reads one row of B per step. Its first pass over a
// cache tile's k block misses all the way to memory: the rows are a matrix
// row apart (a page or more for wide B), so the hardware prefetchers do not
// follow them, and the FMAs wait. This pass makes every register tile
// prefetch, in step with its own reads, the rows it will read in the next k
// block, so that they are in L2 by the time they are needed. A register
// tile that reads a panel ([n / r, k, r], rows end to end, which the
// hardware prefetchers follow) prefetches the next panel's row instead. A
// register tile that reads a panel the schedule packed per k block
// prefetches its share of the block copy's source in the next k block.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/Passes.h"

#include "Transfers.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERCPUPREFETCHNEXTKBLOCKPASS
#include "Transformer/Codegen/CPU/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

namespace {

/// A register tile's share of the next panel's k block (see
/// getRowTileShare): the first read's row, the share's first row in the
/// block (start) and its rows (rowsPerTile), and the block's rows.
struct RowTileShare {
  Value firstRow;
  Value start;
  Value rowsPerTile;
  int64_t blockRows;
};

/// Whether `value` is `loop`'s induction variable plus a value defined
/// outside `outer` (a loop around `loop`): the induction variable itself,
/// an arith.addi of it and such a value, or an affine.apply whose single
/// result has coefficient 1 on the induction variable and whose other
/// operands are such values.
bool isInductionPlusInvariant(Value value, scf::ForOp loop, scf::ForOp outer) {
  Value iv = loop.getInductionVar();
  if (value == iv)
    return true;
  if (auto add = value.getDefiningOp<arith::AddIOp>()) {
    Value lhs = add.getLhs(), rhs = add.getRhs();
    return (isInductionPlusInvariant(lhs, loop, outer) &&
            outer.isDefinedOutsideOfLoop(rhs)) ||
           (isInductionPlusInvariant(rhs, loop, outer) &&
            outer.isDefinedOutsideOfLoop(lhs));
  }
  auto apply = value.getDefiningOp<affine::AffineApplyOp>();
  if (!apply)
    return false;
  AffineMap map = apply.getAffineMap();
  SmallVector<int64_t> flat;
  if (failed(getFlattenedAffineExpr(map.getResult(0), map.getNumDims(),
                                    map.getNumSymbols(), &flat)) ||
      flat.size() != map.getNumInputs() + 1)
    return false;
  bool found = false;
  for (auto [position, operand] : llvm::enumerate(apply.getMapOperands())) {
    if (operand == iv) {
      if (found || flat[position] != 1)
        return false;
      found = true;
    } else if (!outer.isDefinedOutsideOfLoop(operand)) {
      return false;
    }
  }
  return found;
}

/// Whether `value` is `iv` or computed from it by pure ops (the chain
/// followed to a small depth).
bool dependsOn(Value value, Value iv, unsigned depth = 8) {
  if (value == iv)
    return true;
  Operation *def = value.getDefiningOp();
  if (!def || depth == 0 || !isPure(def))
    return false;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return dependsOn(operand, iv, depth - 1);
  });
}

/// The register tile's k loop: constant bounds, and one loop-carried value,
/// the accumulators as a 2-D vector (kept in registers by the schedule's
/// hoisting).
bool isRegisterTileLoop(scf::ForOp loop) {
  if (loop.getNumRegionIterArgs() != 1 || !loop.getStaticTripCount())
    return false;
  auto acc = dyn_cast<VectorType>(loop.getRegionIterArgs()[0].getType());
  return acc && acc.getRank() == 2 && !acc.isScalable();
}

/// The loop's reads of one row of B: a 1 x N vector (N > 1) read in bounds
/// from a memref of rank 2 or more, at a row that changes with the loop.
/// Reads of a panel ([n / r, k, r], rows end to end) go to `panelReads`.
SmallVector<vector::TransferReadOp>
getRowReads(scf::ForOp loop,
            SmallVector<vector::TransferReadOp> *panelReads = nullptr) {
  SmallVector<vector::TransferReadOp> reads;
  for (auto read : loop.getBody()->getOps<vector::TransferReadOp>()) {
    VectorType type = read.getVectorType();
    auto memref = dyn_cast<MemRefType>(read.getBase().getType());
    if (!memref || memref.getRank() < 2 ||
        !memref.getElementType().isIntOrFloat() || type.getRank() != 2 ||
        type.getDimSize(0) != 1 || type.getDimSize(1) < 2 ||
        type.isScalable() || !isPlainTransfer(read))
      continue;
    // B's panel packed by the schedule (a local buffer, in L1) needs none,
    // nor rows that lie end to end (a constant weight copied in panels,
    // [n / r, k, r]): the hardware prefetchers follow those.
    if (read.getBase().getDefiningOp<memref::ViewOp>() ||
        read.getBase().getDefiningOp<memref::AllocOp>())
      continue;
    SmallVector<int64_t> strides;
    int64_t offset;
    int64_t rank = memref.getRank();
    if (succeeded(memref.getStridesAndOffset(strides, offset)) &&
        strides[rank - 1] == 1 && strides[rank - 2] == type.getDimSize(1)) {
      if (panelReads && rank == 3 &&
          memref.getDimSize(2) == type.getDimSize(1) &&
          !loop.isDefinedOutsideOfLoop(read.getIndices()[1]))
        panelReads->push_back(read);
      continue;
    }
    Value row = read.getIndices()[rank - 2];
    if (loop.isDefinedOutsideOfLoop(row))
      continue;
    reads.push_back(read);
  }
  return reads;
}

/// The share of a k block of Kb rows that register tile i of the T tiles
/// `tiles` steps over takes (a tile's k loop `loop` is in it): c = ceil(Kb /
/// T) rows from row i * c. Returns i * c, built before `loop`, and c, built
/// before `tiles`.
std::pair<Value, Value> buildRowShare(scf::ForOp tiles, scf::ForOp loop,
                                      int64_t blockRows, Location loc) {
  // Before the tiles' loop: T (at least 1) and c.
  OpBuilder outer(tiles);
  Value step = tiles.getStep();
  Value one = arith::ConstantIndexOp::create(outer, loc, 1);
  Value extent = outer.createOrFold<arith::SubIOp>(loc, tiles.getUpperBound(),
                                                   tiles.getLowerBound());
  Value count = outer.createOrFold<arith::MaxSIOp>(
      loc, outer.createOrFold<arith::CeilDivSIOp>(loc, extent, step), one);
  Value rowsPerTile = outer.createOrFold<arith::CeilDivSIOp>(
      loc, arith::ConstantIndexOp::create(outer, loc, blockRows), count);
  // In the tile, before its k loop: the first row of its share.
  OpBuilder inTile(loop);
  Value index = inTile.createOrFold<arith::DivUIOp>(
      loc,
      inTile.createOrFold<arith::SubIOp>(loc, tiles.getInductionVar(),
                                         tiles.getLowerBound()),
      step);
  Value start = inTile.createOrFold<arith::MulIOp>(loc, index, rowsPerTile);
  return {start, rowsPerTile};
}

/// Prefetches one row of `memref`, `rowElements` elements from `indices`
/// (the row's first column at `columnDim`), one prefetch per cache line.
/// The lines' column offsets are constants built by `constants` (before a
/// loop, where `b` is in it).
void prefetchRowLines(OpBuilder &b, OpBuilder &constants, Location loc,
                      Value memref, SmallVector<Value> indices,
                      unsigned columnDim, int64_t rowElements,
                      unsigned locality) {
  auto memrefType = cast<MemRefType>(memref.getType());
  int64_t elementBytes =
      std::max<int64_t>(1, memrefType.getElementTypeBitWidth() / 8);
  Value column = indices[columnDim];
  for (int64_t bytes = 0; bytes < rowElements * elementBytes;
       bytes += kCacheLineBytes) {
    if (bytes != 0)
      indices[columnDim] = arith::AddIOp::create(
          b, loc, column,
          arith::ConstantIndexOp::create(constants, loc, bytes / elementBytes));
    memref::PrefetchOp::create(b, loc, memref, indices, /*isWrite=*/false,
                               locality, /*isDataCache=*/true);
  }
}

/// The copy of B's k block that a packed panel comes from (see
/// getBlockCopySource): its read of B, its outer and inner loops, and the
/// block's rows (k). A block copy of a k x n B (`transposed` false) steps
/// over the block's rows, then its columns; the transposing copy of an n x k
/// B (B indexed (n, k), a linear's weight) over the block's columns (B's
/// rows), then its rows (B's columns); the copy of a panel straight from a
/// k x n B over the block's rows only (no inner loop). The loop over panels
/// steps over columns, or (`panelIndexed`, a transposing copy written in
/// panels [n / w, k, w]) over panels of `panelWidth` columns.
struct BlockCopySource {
  vector::TransferReadOp read;
  scf::ForOp outer;
  scf::ForOp inner;
  int64_t blockRows;
  bool transposed;
  int64_t panelWidth = 0;
  bool panelIndexed = false;
};

struct PrefetchNextKBlockPass
    : public transformer::impl::TransformerCPUPrefetchNextKBlockPassBase<
          PrefetchNextKBlockPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    if (locality > 3)
      return emitError(UnknownLoc::get(context))
             << "transformer-cpu-prefetch-next-k-block: locality must be 0 "
                "to 3, got "
             << static_cast<unsigned>(locality);
    if (distance < 0)
      return emitError(UnknownLoc::get(context))
             << "transformer-cpu-prefetch-next-k-block: distance must be 0 "
                "(the next k block) or a positive number of rows, got "
             << static_cast<int64_t>(distance);
    return success();
  }

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (isRegisterTileLoop(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      SmallVector<vector::TransferReadOp> panelReads;
      SmallVector<vector::TransferReadOp> rowReads =
          getRowReads(loop, &panelReads);
      for (vector::TransferReadOp read : rowReads)
        prefetchNextBlock(loop, read);
      if (rowReads.empty() && panelReads.empty()) {
        if (std::optional<BlockCopySource> source = getBlockCopySource(loop))
          prefetchNextBlockSource(loop, *source);
        continue;
      }
      if (panelReads.empty())
        continue;
      // Shared among the tiles: one row per step of the loop, before its
      // first read; else each read's own row.
      if (std::optional<RowTileShare> share =
              getRowTileShare(loop, panelReads.front())) {
        prefetchNextPanel(loop, panelReads.front(), share);
        continue;
      }
      for (vector::TransferReadOp read : panelReads)
        prefetchNextPanel(loop, read, std::nullopt);
    }
  }

  /// The share of the next panel's k block that each register tile along m
  /// prefetches: `loop` is a register tile's k loop directly in the loop
  /// over the panel's register tiles along m (T of them, tile i), and
  /// `first` its first read of the panel, at a row that is the k loop's
  /// induction variable plus a value that does not change with the tile.
  /// Tile i then prefetches rows
  /// [i * c, (i + 1) * c) of the block (c = ceil(Kb / T) of its Kb rows),
  /// one row per step of its loop, row i * c + j * c / Kb at row offset j.
  /// Prefetching the whole block from the first tile asked for 32 KiB
  /// within a tile's 2,000 or so cycles, more than a core keeps in flight:
  /// that tile then ran at the speed of memory while the others found the
  /// lines in cache. A row per step (of an unrolled loop: per 4 rows read)
  /// costs fewer instructions than a prefetch per read, and covers the
  /// share when the tiles are at least as many as the rows per step (T >= 4
  /// with 4; fewer tiles, up to 24 rows of 8-row tiles, leave rows of their
  /// share to the hardware prefetchers). None where the loops are not of
  /// that shape.
  std::optional<RowTileShare> getRowTileShare(scf::ForOp loop,
                                              vector::TransferReadOp first) {
    auto tiles = dyn_cast<scf::ForOp>(loop->getParentOp());
    std::optional<int64_t> tileStep =
        tiles ? getConstantIntValue(tiles.getStep()) : std::nullopt;
    std::optional<int64_t> kStep = getConstantIntValue(loop.getStep());
    Value panel = first.getIndices()[0], row = first.getIndices()[1];
    if (!tileStep || *tileStep <= 0 || !kStep || *kStep <= 0 ||
        !tiles.isDefinedOutsideOfLoop(panel) ||
        !tiles.isDefinedOutsideOfLoop(first.getBase()) ||
        !isInductionPlusInvariant(row, loop, tiles))
      return std::nullopt;
    int64_t blockRows = loop.getStaticTripCount()->getSExtValue() * *kStep;
    if (blockRows <= 0)
      return std::nullopt;
    auto [start, rowsPerTile] =
        buildRowShare(tiles, loop, blockRows, first.getLoc());
    return RowTileShare{row, start, rowsPerTile, blockRows};
  }

  /// Where a register tile's k loop `loop` is in the loop over the tiles
  /// of a panel, in a loop over panels, in a loop over k blocks (panels
  /// inner, as transformer-cpu-panel-contractions makes them), and `read`'s
  /// panel changes with the panel loop: what follows the last panel of a k
  /// block is the first panel of the next k block, and after the last k
  /// block the next panel (the next cache tile's first) at the first k
  /// block. Built before the tiles' loop: whether to go to the first panel
  /// (the last panel, not the last block), that panel's index (the read's
  /// with the panel loop at its start), and the rows to add to the read's
  /// block (the next block's step, minus the blocks done, or 0). None for
  /// other loops.
  struct PanelOrder {
    Value toFirstPanel;
    Value firstPanel;
    Value rowShift;
  };
  std::optional<PanelOrder> getPanelOrder(scf::ForOp loop,
                                          vector::TransferReadOp read) {
    auto tiles = dyn_cast<scf::ForOp>(loop->getParentOp());
    auto panels = tiles ? dyn_cast<scf::ForOp>(tiles->getParentOp()) : nullptr;
    auto kBlocks =
        panels ? dyn_cast<scf::ForOp>(panels->getParentOp()) : nullptr;
    Value panel = read.getIndices()[0];
    if (!kBlocks || panels.isDefinedOutsideOfLoop(panel) ||
        !tiles.isDefinedOutsideOfLoop(panel) ||
        !dependsOn(read.getIndices()[1], kBlocks.getInductionVar()))
      return std::nullopt;
    OpBuilder b(tiles);
    Location loc = read.getLoc();
    IRMapping mapping;
    mapping.map(panels.getInductionVar(), panels.getLowerBound());
    Value firstPanel = cloneIndex(b, panel, panels, tiles, mapping);
    if (!firstPanel)
      return std::nullopt;
    auto isLast = [&](scf::ForOp forOp) {
      return b.createOrFold<arith::CmpIOp>(
          loc, arith::CmpIPredicate::sge,
          b.createOrFold<arith::AddIOp>(loc, forOp.getInductionVar(),
                                        forOp.getStep()),
          forOp.getUpperBound());
    };
    Value lastPanel = isLast(panels), lastBlock = isLast(kBlocks);
    Value notLastBlock = b.createOrFold<arith::XOrIOp>(
        loc, lastBlock, arith::ConstantIntOp::create(b, loc, 1, 1));
    Value toFirstPanel =
        b.createOrFold<arith::AndIOp>(loc, lastPanel, notLastBlock);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value blocksDone = b.createOrFold<arith::SubIOp>(
        loc, kBlocks.getLowerBound(), kBlocks.getInductionVar());
    Value shift = b.createOrFold<arith::SelectOp>(loc, lastBlock, blocksDone,
                                                  kBlocks.getStep());
    Value rowShift =
        b.createOrFold<arith::SelectOp>(loc, lastPanel, shift, zero);
    return PanelOrder{toFirstPanel, firstPanel, rowShift};
  }

  /// Before `read` of a panel's row, prefetches a row of the next panel
  /// (clamped to the last), one prefetch per cache line: the hardware
  /// prefetchers follow a panel's rows, but not from one panel to the next
  /// (a panel's k block is 32 KiB, the next one k x r further), so the
  /// first register tile of each panel would wait on memory for a weight
  /// bound in panels, which a prefill streams from DRAM. With `share`, the
  /// row is the register tile's share of the next panel's block at this
  /// step (see getRowTileShare); else the same row as the read's.
  void prefetchNextPanel(scf::ForOp loop, vector::TransferReadOp read,
                         std::optional<RowTileShare> share) {
    OpBuilder b(read);
    Location loc = read.getLoc();
    Value memref = read.getBase();
    SmallVector<Value> indices(read.getIndices());
    // The next panel before the loop where the buffer and the panel are the
    // loop's invariants, else at the read.
    OpBuilder invariant(loop);
    if (!loop.isDefinedOutsideOfLoop(memref) ||
        !loop.isDefinedOutsideOfLoop(indices[0]))
      invariant.setInsertionPoint(read);
    Value lastPanel = invariant.createOrFold<arith::SubIOp>(
        loc, invariant.createOrFold<memref::DimOp>(loc, memref, 0),
        arith::ConstantIndexOp::create(invariant, loc, 1));
    Value nextPanel = invariant.createOrFold<arith::AddIOp>(
        loc, indices[0], arith::ConstantIndexOp::create(invariant, loc, 1));
    std::optional<PanelOrder> order;
    if (share)
      order = getPanelOrder(loop, read);
    if (order)
      nextPanel = invariant.createOrFold<arith::SelectOp>(
          loc, order->toFirstPanel, order->firstPanel, nextPanel);
    indices[0] =
        invariant.createOrFold<arith::MinSIOp>(loc, nextPanel, lastPanel);
    if (share) {
      // The step's row offset j in the block (iv - lb), the block's first
      // row (the first read's row minus j), and the row start + j * c / Kb
      // of the share.
      Value offset = b.createOrFold<arith::SubIOp>(loc, loop.getInductionVar(),
                                                   loop.getLowerBound());
      Value firstRow =
          b.createOrFold<arith::SubIOp>(loc, share->firstRow, offset);
      Value within = b.createOrFold<arith::DivUIOp>(
          loc, b.createOrFold<arith::MulIOp>(loc, offset, share->rowsPerTile),
          arith::ConstantIndexOp::create(invariant, loc, share->blockRows));
      Value row = b.createOrFold<arith::AddIOp>(
          loc, firstRow,
          b.createOrFold<arith::AddIOp>(loc, share->start, within));
      if (order)
        row = b.createOrFold<arith::AddIOp>(loc, row, order->rowShift);
      Value lastRow = invariant.createOrFold<arith::SubIOp>(
          loc, invariant.createOrFold<memref::DimOp>(loc, memref, 1),
          arith::ConstantIndexOp::create(invariant, loc, 1));
      indices[1] = b.createOrFold<arith::MinSIOp>(loc, row, lastRow);
    }
    indices[2] = read.getIndices()[2];
    prefetchRowLines(b, invariant, loc, memref, indices, /*columnDim=*/2,
                     read.getVectorType().getDimSize(1), locality);
  }

  /// Before `read`, prefetches the same columns `distance` rows further on
  /// (the loop's trip count by default: the same step of the next k block),
  /// clamped to B's last row, one prefetch per cache line of the row.
  void prefetchNextBlock(scf::ForOp loop, vector::TransferReadOp read) {
    OpBuilder b(read);
    Location loc = read.getLoc();
    Value memref = read.getBase();
    auto memrefType = cast<MemRefType>(memref.getType());
    int64_t rank = memrefType.getRank();
    int64_t rows = distance > 0 ? distance
                                : loop.getStaticTripCount()->getSExtValue() *
                                      getConstantStep(loop);
    if (rows <= 0)
      return;
    // The loop-invariant part (B's last row, the constants) before the loop.
    OpBuilder invariant(loop);
    if (!loop.isDefinedOutsideOfLoop(memref))
      invariant.setInsertionPoint(read);
    Value lastRow = invariant.createOrFold<arith::SubIOp>(
        loc, invariant.createOrFold<memref::DimOp>(loc, memref, rank - 2),
        arith::ConstantIndexOp::create(invariant, loc, 1));
    Value ahead = arith::ConstantIndexOp::create(invariant, loc, rows);
    SmallVector<Value> indices(read.getIndices());
    Value row = arith::AddIOp::create(b, loc, indices[rank - 2], ahead);
    indices[rank - 2] = arith::MinSIOp::create(b, loc, row, lastRow);
    prefetchRowLines(b, invariant, loc, memref, indices, rank - 1,
                     read.getVectorType().getDimSize(1), locality);
  }

  /// Where the schedule packs B per k block (a block copy of B's rows into
  /// a local buffer, then each panel copied from it), the register tiles
  /// read the packed panel, and the block copy reads B where it lies: at the
  /// start of each k block it waits on B's rows from L3 or memory, the
  /// tiles idle. `loop` is a register tile's k loop in the loop over the
  /// panel's tiles along m, in the loop over panels, in the k block loop
  /// whose body starts with the block copy: a loop over rows and a loop
  /// over columns (the register tile's width) that reads B
  /// (`vector.transfer_read` of rows x columns, not a local buffer) and
  /// writes a view at (row, column). The panel loop must step over the same
  /// columns as the copy's column loop, from 0 to the same constant. Where
  /// B is indexed (n, k) (see getTransposingCopySource), the block is B's
  /// transposed copy instead.
  std::optional<BlockCopySource> getBlockCopySource(scf::ForOp loop) {
    auto tiles = dyn_cast<scf::ForOp>(loop->getParentOp());
    auto panels = tiles ? dyn_cast<scf::ForOp>(tiles->getParentOp()) : nullptr;
    auto kBlocks =
        panels ? dyn_cast<scf::ForOp>(panels->getParentOp()) : nullptr;
    if (!kBlocks || !loop.getStaticTripCount() || !tiles.getStaticTripCount())
      return std::nullopt;
    for (auto rows : kBlocks.getBody()->getOps<scf::ForOp>()) {
      if (rows == panels)
        break;
      for (auto columns : rows.getBody()->getOps<scf::ForOp>()) {
        if (std::optional<BlockCopySource> source =
                getTransposingCopySource(kBlocks, panels, rows, columns))
          return source;
        for (auto read : columns.getBody()->getOps<vector::TransferReadOp>()) {
          if (!isReadOfB(read, kBlocks) || !read->hasOneUse())
            continue;
          auto write =
              dyn_cast<vector::TransferWriteOp>(*read->getUsers().begin());
          if (!write || !write.getBase().getDefiningOp<memref::ViewOp>() ||
              write.getIndices()[0] != rows.getInductionVar() ||
              write.getIndices()[1] != columns.getInductionVar())
            continue;
          std::optional<int64_t> copyStep =
              getConstantIntValue(columns.getStep());
          std::optional<int64_t> panelStep =
              getConstantIntValue(panels.getStep());
          std::optional<int64_t> rowBound =
              getConstantIntValue(rows.getUpperBound());
          if (!copyStep || !panelStep || *copyStep != *panelStep || !rowBound ||
              getConstantIntValue(columns.getUpperBound()) !=
                  getConstantIntValue(panels.getUpperBound()) ||
              !getConstantIntValue(panels.getUpperBound()) ||
              !isConstantIntValue(rows.getLowerBound(), 0) ||
              !isConstantIntValue(columns.getLowerBound(), 0) ||
              !isConstantIntValue(panels.getLowerBound(), 0))
            continue;
          return BlockCopySource{read, rows, columns, *rowBound,
                                 /*transposed=*/false};
        }
      }
    }
    return getPanelCopySource(kBlocks, panels, tiles);
  }

  /// The copy of a panel straight from a k x n B (no block copy): in the
  /// loop over panels, before the loop over its register tiles, a loop over
  /// the block's rows from 0 to a constant that reads B (rows x the
  /// panel's columns, at the loop's induction variable plus an invariant
  /// row) into a view at (row, 0). Its rows are a matrix row apart, which
  /// the hardware prefetchers do not follow.
  std::optional<BlockCopySource>
  getPanelCopySource(scf::ForOp kBlocks, scf::ForOp panels, scf::ForOp tiles) {
    for (auto rows : panels.getBody()->getOps<scf::ForOp>()) {
      if (rows == tiles)
        break;
      std::optional<int64_t> rowBound =
          getConstantIntValue(rows.getUpperBound());
      if (!rowBound || !isConstantIntValue(rows.getLowerBound(), 0))
        continue;
      for (auto read : rows.getBody()->getOps<vector::TransferReadOp>()) {
        if (!isReadOfB(read, kBlocks) || !read->hasOneUse() ||
            !isInductionPlusInvariant(read.getIndices()[0], rows, rows) ||
            !rows.isDefinedOutsideOfLoop(read.getIndices()[1]))
          continue;
        auto write =
            dyn_cast<vector::TransferWriteOp>(*read->getUsers().begin());
        if (!write || !write.getBase().getDefiningOp<memref::ViewOp>() ||
            write.getIndices()[0] != rows.getInductionVar())
          continue;
        return BlockCopySource{read, rows, /*inner=*/nullptr, *rowBound,
                               /*transposed=*/false};
      }
    }
    return std::nullopt;
  }

  /// A read of B by a block copy: a 2-D in-bounds read of a 2-D memref
  /// defined outside the k block loop, not a local buffer.
  static bool isReadOfB(vector::TransferReadOp read, scf::ForOp kBlocks) {
    VectorType type = read.getVectorType();
    auto memref = dyn_cast<MemRefType>(read.getBase().getType());
    return memref && memref.getRank() == 2 && type.getRank() == 2 &&
           isUnmaskedMinorTransfer(read) &&
           !read.getBase().getDefiningOp<memref::ViewOp>() &&
           !read.getBase().getDefiningOp<memref::AllocOp>() &&
           kBlocks.isDefinedOutsideOfLoop(read.getBase());
  }

  /// The transposing copy of an n x k B's block (a linear's weight): a loop
  /// over the block's columns (`outer`, B's rows) and one over its rows
  /// (`inner`, B's columns) that read L x L tiles of B at (n + outer, k +
  /// inner) and write them transposed into a local buffer, from 0 to
  /// constants. Either at (inner, outer) of a k x n block (the schedule's
  /// "transpose_tile"), the panel loop covering the same columns; or into
  /// panels [n / w, k, w] (transformer-cpu-fuse-epilogues'
  /// transposeIntoPanels), the panel loop counting the panels of all the
  /// block's columns. B's rows lie a row of k apart, read 16 at a time for
  /// a few lines each: too short a stream for the hardware prefetchers, so
  /// without this every k block waits on B as above.
  std::optional<BlockCopySource> getTransposingCopySource(scf::ForOp kBlocks,
                                                          scf::ForOp panels,
                                                          scf::ForOp outer,
                                                          scf::ForOp inner) {
    std::optional<int64_t> rowBound =
        getConstantIntValue(inner.getUpperBound());
    std::optional<int64_t> panelBound =
        getConstantIntValue(panels.getUpperBound());
    std::optional<int64_t> columnBound =
        getConstantIntValue(outer.getUpperBound());
    std::optional<int64_t> panelStep = getConstantIntValue(panels.getStep());
    if (!rowBound || !panelBound || !columnBound || !panelStep ||
        !isConstantIntValue(outer.getLowerBound(), 0) ||
        !isConstantIntValue(inner.getLowerBound(), 0) ||
        !isConstantIntValue(panels.getLowerBound(), 0))
      return std::nullopt;
    for (auto read : inner.getBody()->getOps<vector::TransferReadOp>()) {
      VectorType type = read.getVectorType();
      if (!isReadOfB(read, kBlocks) || type.getDimSize(0) < 2 ||
          type.getDimSize(0) != type.getDimSize(1) ||
          !isInductionPlusInvariant(read.getIndices()[0], outer, outer) ||
          !isInductionPlusInvariant(read.getIndices()[1], inner, outer))
        continue;
      for (Operation &op : inner.getBody()->without_terminator()) {
        Value base;
        ValueRange indices;
        if (auto write = dyn_cast<vector::TransferWriteOp>(op)) {
          base = write.getBase();
          indices = write.getIndices();
        } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
          base = store.getBase();
          indices = store.getIndices();
        } else {
          continue;
        }
        if (!base.getDefiningOp<memref::AllocOp>() &&
            !base.getDefiningOp<memref::ViewOp>())
          continue;
        auto buffer = cast<MemRefType>(base.getType());
        // k x n: at (inner, outer), the panels over the same columns.
        if (buffer.getRank() == 2 && indices[0] == inner.getInductionVar() &&
            indices[1] == outer.getInductionVar() &&
            *panelBound == *columnBound)
          return BlockCopySource{read,
                                 outer,
                                 inner,
                                 *rowBound,
                                 /*transposed=*/true,
                                 *panelStep,
                                 /*panelIndexed=*/false};
        // Panels [P, k, w]: the panel loop over the P panels, one at a time.
        if (buffer.getRank() == 3 && !buffer.isDynamicDim(0) &&
            !buffer.isDynamicDim(2) && *panelStep == 1 &&
            *panelBound == buffer.getDimSize(0) &&
            *panelBound * buffer.getDimSize(2) == *columnBound)
          return BlockCopySource{read,
                                 outer,
                                 inner,
                                 *rowBound,
                                 /*transposed=*/true,
                                 buffer.getDimSize(2),
                                 /*panelIndexed=*/true};
      }
    }
    return std::nullopt;
  }

  /// Clones the ops between `value` and the loops' induction variables
  /// before `b`'s insertion point (in `at`), with the values that `mapping`
  /// has replaced; values defined outside `scope` and induction variables
  /// of loops around `at` stay. None if the chain has anything but pure ops
  /// or another loop's induction variable.
  static Value cloneIndex(OpBuilder &b, Value value, Operation *scope,
                          Operation *at, IRMapping &mapping) {
    if (Value mapped = mapping.lookupOrNull(value))
      return mapped;
    if (!scope->isAncestor(value.getParentRegion()->getParentOp()))
      return value;
    if (auto argument = dyn_cast<BlockArgument>(value))
      return argument.getOwner()->getParentOp()->isAncestor(at) ? value
                                                                : Value();
    Operation *def = value.getDefiningOp();
    if (def->getNumRegions() != 0 || !isPure(def) || def->getNumResults() != 1)
      return {};
    for (Value operand : def->getOperands())
      if (!cloneIndex(b, operand, scope, at, mapping))
        return {};
    Operation *clone = b.clone(*def, mapping);
    return clone->getResult(0);
  }

  /// Before `loop` (the k loop of register tile i of the T tiles along m of
  /// a panel), a loop that prefetches the tile's share of the panel's
  /// columns in the next k block, one prefetch per line, at the copy's
  /// indices with its loops' induction variables replaced, clamped to B.
  /// A k x n B: rows `i * c` to `(i + 1) * c - 1` of the next block (c =
  /// ceil(Kb / T)), the copy's row Kb further on and its column the
  /// panel's, each row as wide as the read. An n x k B: the panel's columns
  /// are B's rows, r of them (a panel's width); rows `i * c` to `(i +
  /// 1) * c - 1` of those (c = ceil(r / T)), Kb elements each from the next
  /// block's first. In the last k block of a cache tile (in an
  /// `scf.forall` over cache tiles), the same share of the first block of
  /// the next cache tile along n instead, which a thread takes next
  /// (OpenMP's static schedule gives each thread consecutive tiles): its
  /// first block would otherwise wait on memory too.
  void prefetchNextBlockSource(scf::ForOp loop, BlockCopySource source) {
    auto tiles = cast<scf::ForOp>(loop->getParentOp());
    auto panels = cast<scf::ForOp>(tiles->getParentOp());
    auto kBlocks = cast<scf::ForOp>(panels->getParentOp());
    auto forall = kBlocks->getParentOfType<scf::ForallOp>();
    Operation *scope = forall ? forall.getOperation() : kBlocks.getOperation();
    vector::TransferReadOp read = source.read;
    Location loc = read.getLoc();
    Value memref = read.getBase();
    int64_t blockRows = source.blockRows;
    int64_t shareRows = source.transposed ? source.panelWidth : blockRows;
    auto [start, rowsPerTile] = buildRowShare(tiles, loop, shareRows, loc);
    OpBuilder outer(tiles);
    Value zero = arith::ConstantIndexOp::create(outer, loc, 0);
    Value one = arith::ConstantIndexOp::create(outer, loc, 1);
    Value lastRow = outer.createOrFold<arith::SubIOp>(
        loc, outer.createOrFold<memref::DimOp>(loc, memref, 0), one);
    Value lastColumn = outer.createOrFold<arith::SubIOp>(
        loc, outer.createOrFold<memref::DimOp>(loc, memref, 1), one);
    // Whether this is the cache tile's last k block.
    Value lastBlock;
    if (forall)
      lastBlock = outer.createOrFold<arith::CmpIOp>(
          loc, arith::CmpIPredicate::sge,
          outer.createOrFold<arith::AddIOp>(
              loc, kBlocks.getInductionVar(),
              arith::ConstantIndexOp::create(outer, loc, blockRows)),
          kBlocks.getUpperBound());
    OpBuilder inTile(loop);

    // A loop over the share's rows before the tile's k loop.
    Value end = inTile.createOrFold<arith::MinSIOp>(
        loc, inTile.createOrFold<arith::AddIOp>(loc, start, rowsPerTile),
        arith::ConstantIndexOp::create(inTile, loc, shareRows));
    auto shareLoop = scf::ForOp::create(inTile, loc, start, end, one);
    OpBuilder b = OpBuilder::atBlockBegin(shareLoop.getBody());
    Value shareRow = shareLoop.getInductionVar();
    // The share's indices in the block `blockOffset` rows of k further on,
    // with `mapping` replacing more.
    auto shareIndices = [&](Value blockOffset, IRMapping &mapping) {
      if (source.transposed) {
        Value panelColumn = panels.getInductionVar();
        if (source.panelIndexed)
          panelColumn = b.createOrFold<arith::MulIOp>(
              loc, panelColumn,
              arith::ConstantIndexOp::create(b, loc, source.panelWidth));
        mapping.map(source.outer.getInductionVar(),
                    b.createOrFold<arith::AddIOp>(loc, panelColumn, shareRow));
        mapping.map(source.inner.getInductionVar(), blockOffset);
      } else {
        mapping.map(source.outer.getInductionVar(),
                    b.createOrFold<arith::AddIOp>(loc, shareRow, blockOffset));
        if (source.inner)
          mapping.map(source.inner.getInductionVar(), panels.getInductionVar());
      }
      return std::make_pair(
          cloneIndex(b, read.getIndices()[0], scope, shareLoop, mapping),
          cloneIndex(b, read.getIndices()[1], scope, shareLoop, mapping));
    };
    IRMapping nextMapping;
    auto [row, column] = shareIndices(
        arith::ConstantIndexOp::create(b, loc, blockRows), nextMapping);
    if (!row || !column) {
      shareLoop.erase();
      return;
    }
    if (forall) {
      // The next tile's first block: the k block loop at its start, the
      // cache tile loops one step on.
      IRMapping wrapMapping;
      wrapMapping.map(kBlocks.getInductionVar(), kBlocks.getLowerBound());
      for (auto [iv, step] :
           llvm::zip_equal(forall.getInductionVars(), forall.getMixedStep()))
        wrapMapping.map(
            iv, b.createOrFold<arith::AddIOp>(
                    loc, iv, getValueOrCreateConstantIndexOp(b, loc, step)));
      auto [wrapRow, wrapColumn] = shareIndices(zero, wrapMapping);
      if (wrapRow && wrapColumn) {
        row = b.createOrFold<arith::SelectOp>(loc, lastBlock, wrapRow, row);
        column =
            b.createOrFold<arith::SelectOp>(loc, lastBlock, wrapColumn, column);
      }
    }
    row = b.createOrFold<arith::MinSIOp>(loc, row, lastRow);
    column = b.createOrFold<arith::MinSIOp>(loc, column, lastColumn);
    int64_t rowElements =
        source.transposed ? blockRows : read.getVectorType().getDimSize(1);
    prefetchRowLines(b, b, loc, memref, {row, column}, /*columnDim=*/1,
                     rowElements, locality);
  }

  static int64_t getConstantStep(scf::ForOp loop) {
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    return step ? *step : 0;
  }
};

} // namespace
