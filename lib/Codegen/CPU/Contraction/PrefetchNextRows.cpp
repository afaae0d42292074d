//===- PrefetchNextRows.cpp - Prefetch the few-rows kernels' B rows ------===//
//
// The few-rows kernels of a B indexed (n, k) (the dot-product form: decode
// steps, the LM head) read a group of rows of B side by side along k, then
// the next group. For weights widened in registers (bf16, f16, Q8_0 and
// Q4_0 blocks) the loads wait on memory: on one thread, a Q8_0 weight
// streamed at 13 GB/s where the same kernel reads it at 40 GB/s from L3.
// This pass makes each row's reads prefetch the same place in the row two
// groups further on, so that the rows arrive before their group is
// computed. The row form (B indexed (k, n)) reads a stretch of B's row k per
// step of k, rows a matrix row apart, or row k of a few of B's panels; for
// 16-bit B it prefetches the stretch, or each panel's line, some rows
// ahead.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <set>

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERCPUPREFETCHNEXTROWSPASS
#include "Transformer/Codegen/CPU/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

namespace {

/// memref.prefetch's locality hint: into L2 (prefetcht2), where the next
/// group is read from; the rows are read once.
constexpr unsigned kLocality = 1;

/// How many rows ahead a loop over the rows of B indexed (k, n) prefetches.
/// A row form's step of k reads a few hundred bytes of a 16-bit B row (256
/// columns: 512 bytes) in a few cycles; 16 rows ahead made GPT-2's bf16
/// decode step 11% faster on a Xeon with AVX-512 (8: 9%, 32: 10%). f32 rows
/// are left alone: the prefetches made the f32 step 3% slower there.
constexpr int64_t kRowsAhead = 16;

/// At most this many lines of a row are prefetched per read column (a
/// single-row tile of 384 bf16 columns reads 12).
constexpr size_t kMaxLinesAhead = 32;

/// Column offsets beyond this are not split off as constants (so that the
/// offset arithmetic cannot overflow).
constexpr int64_t kMaxColumnOffset = int64_t(1) << 32;

/// How many groups ahead the prefetches read. One group of a 768-deep row
/// (GPT-2's decode projections) is computed in a few hundred cycles, less
/// than a read from memory takes; two ahead made GPT-2's bf16, q8_0 and
/// q4_0 decode steps about 3% faster (Zen 5), four no better than two.
constexpr int64_t kGroupsAhead = 2;

/// A read of `loop`'s body that walks along one row of a memref: a
/// vector.load or an unmasked in-bounds vector.transfer_read of a memref of
/// rank 2 or more whose first index (the row) is the same on every
/// iteration and whose other indices are not.
struct RowRead {
  Operation *op;
  Value base;
  SmallVector<Value> indices;
};

std::optional<RowRead> getRowRead(scf::ForOp loop, Operation &op) {
  Value base;
  SmallVector<Value> indices;
  if (auto load = dyn_cast<vector::LoadOp>(op)) {
    base = load.getBase();
    indices = load.getIndices();
  } else if (auto read = dyn_cast<vector::TransferReadOp>(op)) {
    if (read.getMask() ||
        llvm::any_of(read.getInBoundsValues(), [](bool b) { return !b; }))
      return std::nullopt;
    base = read.getBase();
    indices = read.getIndices();
  } else {
    return std::nullopt;
  }
  auto type = dyn_cast<MemRefType>(base.getType());
  if (!type || type.getRank() < 2 || !loop.isDefinedOutsideOfLoop(base) ||
      !loop.isDefinedOutsideOfLoop(indices.front()) ||
      llvm::all_of(ArrayRef<Value>(indices).drop_front(),
                   [&](Value v) { return loop.isDefinedOutsideOfLoop(v); }))
    return std::nullopt;
  return RowRead{&op, base, indices};
}

/// Whether a row of panels `type` ([n / r, k, r]) is whole cache lines (a
/// bf16 panel 32 wide: one line), as the rows of a block-quantized weight
/// ([n, k / 32, bytes per block]) are not.
bool isWholeLines(MemRefType type) {
  int64_t width = type.getShape().back();
  return !ShapedType::isDynamic(width) &&
         (width * type.getElementTypeBitWidth() / 8) % kCacheLineBytes == 0;
}

struct PrefetchNextRowsPass
    : public transformer::impl::TransformerCPUPrefetchNextRowsPassBase<
          PrefetchNextRowsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      prefetchNextGroup(loop);
      prefetchRowsAhead(loop);
    }
  }

  /// For a loop whose induction variable is the row of its reads of a
  /// memref (B indexed (k, n) in the row form's kernel, one step of k per
  /// iteration), one prefetch per cache line that the body's loads of a row
  /// cover: the same line kRowsAhead rows further on, clamped to the last
  /// row, before the first of those loads. Lines are counted from each
  /// load's column as a loop-invariant value plus a constant.
  void prefetchRowsAhead(scf::ForOp loop) {
    Value iv = loop.getInductionVar();
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!step || *step != 1)
      return;
    /// The lines read past one loop-invariant column of a row (or past
    /// column 0 for constant columns).
    struct Lines {
      Operation *firstRead;
      int64_t lineElements;
      std::set<int64_t> lines;
    };
    llvm::MapVector<std::tuple<Value, Value, Value>, Lines> linesByColumn;
    for (Operation &op : loop.getBody()->without_terminator()) {
      auto load = dyn_cast<vector::LoadOp>(op);
      if (!load)
        continue;
      MemRefType type = load.getMemRefType();
      VectorType vector = load.getVectorType();
      Value base = load.getBase();
      // B [k, n], or in panels [n / r, k, r] (the panel invariant too).
      int64_t rank = type.getRank();
      ValueRange indices = load.getIndices();
      if ((rank != 2 && rank != 3) || vector.getRank() != 1 ||
          vector.isScalable() || !type.getElementType().isIntOrFloat() ||
          type.getElementTypeBitWidth() >= 32 ||
          type.getElementTypeBitWidth() < 8 || indices[rank - 2] != iv ||
          !loop.isDefinedOutsideOfLoop(base) ||
          !loop.isDefinedOutsideOfLoop(indices[rank - 1]) ||
          (rank == 3 &&
           (!loop.isDefinedOutsideOfLoop(indices[0]) || !isWholeLines(type))))
        continue;
      // A buffer of the kernel's own (a packed panel) is in cache already.
      if (base.getDefiningOp<memref::AllocOp>() ||
          base.getDefiningOp<memref::AllocaOp>() ||
          base.getDefiningOp<memref::ViewOp>())
        continue;
      auto [column, offset] = splitConstantOffset(indices[rank - 1]);
      int64_t lineElements =
          kCacheLineBytes * 8 / type.getElementTypeBitWidth();
      int64_t first = llvm::divideFloorSigned(offset, lineElements);
      int64_t last = llvm::divideFloorSigned(
          offset + vector.getNumElements() - 1, lineElements);
      Lines &lines =
          linesByColumn[{base, rank == 3 ? indices[0] : Value(), column}];
      if (!lines.firstRead)
        lines = Lines{&op, lineElements, {}};
      for (int64_t line = first; line <= last; ++line)
        lines.lines.insert(line);
    }
    for (auto &[key, lines] : linesByColumn) {
      auto [base, panel, column] = key;
      // A scatter of far-apart reads is not a stretch of a row.
      if (lines.lines.size() > kMaxLinesAhead)
        continue;
      Location loc = lines.firstRead->getLoc();
      OpBuilder invariant(loop);
      Value lastRow = invariant.createOrFold<arith::SubIOp>(
          loc, invariant.createOrFold<memref::DimOp>(loc, base, panel ? 1 : 0),
          arith::ConstantIndexOp::create(invariant, loc, 1));
      Value ahead = arith::ConstantIndexOp::create(invariant, loc, kRowsAhead);
      SmallVector<Value> lineColumns;
      for (int64_t line : lines.lines) {
        int64_t at = line * lines.lineElements;
        Value offset = arith::ConstantIndexOp::create(invariant, loc, at);
        lineColumns.push_back(
            !column   ? offset
            : at == 0 ? column
                      : arith::AddIOp::create(invariant, loc, column, offset)
                            .getResult());
      }
      OpBuilder b(lines.firstRead);
      Value row = arith::MinSIOp::create(
          b, loc, arith::AddIOp::create(b, loc, iv, ahead), lastRow);
      for (Value lineColumn : lineColumns) {
        SmallVector<Value> at = {row, lineColumn};
        if (panel)
          at.insert(at.begin(), panel);
        memref::PrefetchOp::create(b, loc, base, at,
                                   /*isWrite=*/false, kLocality,
                                   /*isDataCache=*/true);
      }
    }
  }

  /// `index` as a value plus a constant: (x, c) for `arith.addi x, c` (the
  /// constant on either side), (nullptr, c) for a constant, else (index, 0).
  /// Constants of more than kMaxColumnOffset leave the index whole.
  static std::pair<Value, int64_t> splitConstantOffset(Value index) {
    auto fits = [](std::optional<int64_t> c) {
      return c && *c >= -kMaxColumnOffset && *c <= kMaxColumnOffset;
    };
    std::optional<int64_t> constant = getConstantIntValue(index);
    if (fits(constant))
      return {Value(), *constant};
    if (auto add = index.getDefiningOp<arith::AddIOp>()) {
      std::optional<int64_t> rhs = getConstantIntValue(add.getRhs());
      if (fits(rhs))
        return {add.getLhs(), *rhs};
      std::optional<int64_t> lhs = getConstantIntValue(add.getLhs());
      if (fits(lhs))
        return {add.getRhs(), *lhs};
    }
    return {index, 0};
  }

  /// For each memref whose rows `loop` reads in a group of two or more, one
  /// prefetch before each distinct place it reads in a row (reads that only
  /// differ by a constant last index, the parts of one quantized block, share
  /// one): the same place, kGroupsAhead groups of rows further on, clamped
  /// to the last row.
  void prefetchNextGroup(scf::ForOp loop) {
    llvm::MapVector<Value, SmallVector<RowRead>> readsByBase;
    for (Operation &op : loop.getBody()->without_terminator())
      if (std::optional<RowRead> read = getRowRead(loop, op))
        readsByBase[read->base].push_back(*read);
    for (auto &[base, reads] : readsByBase) {
      llvm::SetVector<Value> rows;
      for (const RowRead &read : reads)
        rows.insert(read.indices.front());
      int64_t group = rows.size();
      auto type = cast<MemRefType>(base.getType());
      int64_t rowCount = type.getDimSize(0);
      // A's few rows, read whole by every group, are not a stream; f32 rows
      // the hardware prefetchers follow on their own (no gain measured); the
      // panels of B (a row form's, whose "rows" are panels that the next
      // tiles, often another thread's, read) get prefetchRowsAhead's.
      if (group < 2 || (type.getRank() == 3 && isWholeLines(type)) ||
          (!ShapedType::isDynamic(rowCount) && rowCount <= group) ||
          !type.getElementType().isIntOrFloat() ||
          type.getElementTypeBitWidth() >= 32)
        continue;
      OpBuilder invariant(loop);
      Location loc = loop.getLoc();
      Value lastRow = invariant.createOrFold<arith::SubIOp>(
          loc, invariant.createOrFold<memref::DimOp>(loc, base, 0),
          arith::ConstantIndexOp::create(invariant, loc, 1));
      Value ahead =
          arith::ConstantIndexOp::create(invariant, loc, group * kGroupsAhead);
      llvm::DenseMap<Value, Value> nextRows;
      for (Value row : rows)
        nextRows[row] = invariant.createOrFold<arith::MinSIOp>(
            loc, arith::AddIOp::create(invariant, loc, row, ahead), lastRow);
      std::set<SmallVector<void *>> prefetched;
      for (const RowRead &read : reads) {
        SmallVector<void *> key;
        for (Value index : ArrayRef<Value>(read.indices).drop_back())
          key.push_back(index.getAsOpaquePointer());
        Value last = read.indices.back();
        key.push_back(getConstantIntValue(last) ? nullptr
                                                : last.getAsOpaquePointer());
        if (!prefetched.insert(key).second)
          continue;
        SmallVector<Value> indices(read.indices);
        indices.front() = nextRows[indices.front()];
        OpBuilder b(read.op);
        memref::PrefetchOp::create(b, read.op->getLoc(), base, indices,
                                   /*isWrite=*/false, kLocality,
                                   /*isDataCache=*/true);
      }
    }
  }
};

} // namespace
