//===- DotKernel.cpp - Few rows times a B indexed (n, k) ------------------===//

#include "DotKernel.h"
#include "Panels.h"
#include "QuantizedBlocks.h"

#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/Codegen/CPU/Target/CPUTarget.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::transformer;

namespace {
/// f32 values per vector register of the module's target (16 in a zmm, 8 in
/// a ymm).
int64_t getLanes(Operation *op) { return CPUTarget::forOp(op).f32Lanes(); }
/// Columns per register tile: 8 accumulators, 8 loads of B and one of A per
/// step of k.
constexpr int64_t kColumns = 8;
/// Columns per task of the threads, at most.
constexpr int64_t kColumnsPerTask = 256;
/// ... and at least, when halved for an even number of tasks.
constexpr int64_t kMinColumnsPerTask = 64;
/// Task widths the row form prefers, widest first (multiples of
/// kRowTileColumns).
constexpr int64_t kRowTaskColumns[] = {384, 256, 128};
/// Columns of the row form's register tile: 4 zmm or 8 ymm vectors.
constexpr int64_t kRowTileColumns = 64;
/// Rows of A that the row form's register tile takes at once, at most.
constexpr int64_t kRowFormMaxGroup = 4;
} // namespace

int64_t transformer::getRowFormGroup(Operation *op) {
  const CPUTarget &target = CPUTarget::forOp(op);
  int64_t vectors = kRowTileColumns / target.f32Lanes();
  // The group's accumulators, B's vectors and one broadcast in registers:
  // 4 rows with 32 zmm (16 + 4 + 1); one with 16 ymm (8 + 8 already fill
  // them).
  int64_t rows =
      (static_cast<int64_t>(target.vectorRegisters) - vectors - 1) / vectors;
  return std::clamp<int64_t>(rows, 1, kRowFormMaxGroup);
}

int64_t transformer::getRowFormMaxRows(Operation *op) {
  return getRowFormGroup(op) > 1 ? kRowFormMaxRowsGrouped : kRowMaxRows;
}

namespace {
/// Columns per task for `op`'s result (rows x columns): all of them (one
/// task, on the calling thread) when the static sizes make fewer than
/// kMinThreadedFlops; otherwise kColumnsPerTask, halved (down to
/// kMinColumnsPerTask) while a static width makes an odd number of tasks.
/// Two threads then share the work evenly: a decode step's 768-column
/// projections made 3 tasks of 256, one thread doing two while the other
/// waited.
int64_t getColumnsPerTask(linalg::LinalgOp op) {
  auto resultType = cast<ShapedType>(op.getDpsInits()[0].getType());
  int64_t width = resultType.getDimSize(1);
  int64_t perTask = kColumnsPerTask;
  if (ShapedType::isDynamic(width))
    return perTask;
  if (!isContractionWorthThreads(op))
    return std::max<int64_t>(width, 1);
  while (perTask > kMinColumnsPerTask &&
         llvm::divideCeil(width, perTask) % 2 == 1)
    perTask /= 2;
  return perTask;
}

/// Columns per task of the row form: the widest of kRowTaskColumns that
/// divides a static width worth threads into a multiple of the target's
/// threads (which then share the tasks evenly, and a single row of A reads
/// each task's stretch of B's row at once: getSingleRowTileVectors), else
/// getColumnsPerTask's. With two threads GPT-2's 768-, 2304- and
/// 3072-column projections get tasks of 384 columns instead of 128, 128
/// and 256: its bf16 decode step ran 8% faster on a Xeon with AVX-512, the
/// f32 step 3%.
int64_t getRowColumnsPerTask(linalg::LinalgOp op) {
  auto resultType = cast<ShapedType>(op.getDpsInits()[0].getType());
  int64_t width = resultType.getDimSize(1);
  int64_t threads =
      std::max<int64_t>(1, static_cast<int64_t>(CPUTarget::forOp(op).threads));
  if (!ShapedType::isDynamic(width) && isContractionWorthThreads(op))
    for (int64_t columns : kRowTaskColumns)
      if (width % columns == 0 && (width / columns) % threads == 0)
        return columns;
  return getColumnsPerTask(op);
}

/// Vectors per row in the row form's register tile for a single row of A
/// (a decode step, the rows past the last whole group): the task's columns
/// in up to all but 8 of the vector registers (24 zmm: 384 columns) where
/// the task's and the result's columns are a multiple of that, else
/// kRowTileColumns' worth (AVX2's 16 ymm: 8 vectors, 64 columns either
/// way). One row of A leaves free the registers a group's accumulators
/// take, and reading a longer stretch of each row of B per step of k (rows
/// a matrix row apart) keeps more of B's lines in flight: GPT-2's f32
/// decode step ran 11% faster on a Xeon with AVX-512 (256 columns against
/// 64).
int64_t getSingleRowTileVectors(linalg::LinalgOp op, int64_t perTask) {
  const CPUTarget &target = CPUTarget::forOp(op);
  int64_t lanes = target.f32Lanes();
  int64_t vectors = kRowTileColumns / lanes;
  auto resultType = cast<ShapedType>(op.getDpsInits()[0].getType());
  int64_t width = resultType.getDimSize(1);
  if (ShapedType::isDynamic(width))
    return vectors;
  // The accumulators in all but 8 registers (24 zmm of 32, 8 ymm of 16),
  // the others for B's vectors being widened and A's broadcast; a multiple
  // of the groups' 64-column parts, which the same tiles are cut into.
  int64_t wide = std::min<int64_t>(
      perTask / lanes, static_cast<int64_t>(target.vectorRegisters) - 8);
  wide -= wide % vectors;
  if (wide <= vectors || perTask % (wide * lanes) != 0 ||
      width % (wide * lanes) != 0)
    return vectors;
  return wide;
}

/// Whether `op` is a 3-loop f32 multiply-accumulate (upstream's contraction
/// check) indexed A (m, k), B as `rhs`, C (m, n), with loops (m, n, k). B
/// may hold bf16 or f16 (isWidenedToF32), widened as it is loaded.
bool isF32Contraction(linalg::LinalgOp op, bool rhsIsNK) {
  if (op.getNumLoops() != 3 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics() ||
      !linalg::isaContractionOpInterface(op))
    return false;
  Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1],
        acc = op.getDpsInits()[0];
  if (!getElementTypeOrSelf(lhs.getType()).isF32() ||
      !getElementTypeOrSelf(acc.getType()).isF32())
    return false;
  Type rhsElement = getElementTypeOrSelf(rhs.getType());
  if (!rhsElement.isF32() && !isWidenedToF32(rhsElement))
    return false;
  MLIRContext *ctx = op.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  return maps[0] == AffineMap::get(3, 0, {m, k}, ctx) &&
         maps[1] == AffineMap::get(3, 0,
                                   rhsIsNK ? ArrayRef<AffineExpr>{n, k}
                                           : ArrayRef<AffineExpr>{k, n},
                                   ctx) &&
         maps[2] == AffineMap::get(3, 0, {m, n}, ctx);
}

/// Whether loop `loop` of `op` has a static size that is a multiple of `of`.
bool isStaticMultiple(linalg::LinalgOp op, unsigned loop, int64_t of) {
  int64_t size = op.getStaticLoopRanges()[loop];
  return !ShapedType::isDynamic(size) && size % of == 0;
}
} // namespace

bool transformer::isWidenedToF32(Type type) {
  return type.isBF16() || type.isF16();
}

Value transformer::readAsF32(OpBuilder &b, Location loc, VectorType type,
                             Value source, ValueRange indices) {
  Type element = getElementTypeOrSelf(source.getType());
  auto readType = VectorType::get(type.getShape(), element);
  Value padding =
      arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.0));
  Value read =
      vector::TransferReadOp::create(b, loc, readType, source, indices, padding,
                                     SmallVector<bool>(type.getRank(), true));
  if (element == type.getElementType())
    return read;
  return arith::ExtFOp::create(b, loc, type, read);
}

bool transformer::isDotForm(linalg::LinalgOp op) {
  return isF32Contraction(op, /*rhsIsNK=*/true) &&
         isStaticMultiple(op, 2, getLanes(op));
}

bool transformer::isF32PanelContraction(linalg::LinalgOp op) {
  int64_t width = getPanelWidth(op);
  if (!width)
    return false;
  Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1],
        acc = op.getDpsInits()[0];
  Type rhsElement = getElementTypeOrSelf(rhs.getType());
  if (!getElementTypeOrSelf(lhs.getType()).isF32() ||
      (!rhsElement.isF32() && !isWidenedToF32(rhsElement)) ||
      !getElementTypeOrSelf(acc.getType()).isF32())
    return false;
  MLIRContext *ctx = op.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[0] != AffineMap::get(3, 0, {m, k}, ctx) ||
      maps[2] != AffineMap::get(3, 0, {m, n}, ctx) ||
      op.getIteratorTypesArray() !=
          SmallVector<utils::IteratorType>{utils::IteratorType::parallel,
                                           utils::IteratorType::parallel,
                                           utils::IteratorType::reduction})
    return false;
  return hasMulAddBody(op);
}

bool transformer::isRowForm(linalg::LinalgOp op) {
  // Panels: each vector of B read lies in one panel.
  int64_t width = getPanelWidth(op);
  bool panels = isF32PanelContraction(op) && kRowTileColumns % width == 0 &&
                width % getLanes(op) == 0;
  return (panels || isF32Contraction(op, /*rhsIsNK=*/false)) &&
         isStaticMultiple(op, 1, kRowTileColumns);
}

Value transformer::buildDotKernel(OpBuilder &b, linalg::LinalgOp op,
                                  std::optional<DequantizedWeight> quantized) {
  Location loc = op.getLoc();
  Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
  Value acc = op.getDpsInits()[0];
  int64_t depth = op.getStaticLoopRanges()[2];
  Type f32 = b.getF32Type();
  const int64_t lanes = getLanes(op);
  auto lanesType = VectorType::get({lanes}, f32);
  auto columnsType = VectorType::get({kColumns}, f32);

  auto index = [&](OpBuilder &nb, int64_t value) -> Value {
    return arith::ConstantIndexOp::create(nb, loc, value);
  };
  Value c0 = index(b, 0), c1 = index(b, 1);
  Value rows = tensor::DimOp::create(b, loc, acc, 0);
  Value columns = tensor::DimOp::create(b, loc, acc, 1);
  int64_t perTask = getColumnsPerTask(op);
  Value zeros = arith::ConstantOp::create(
      b, loc, lanesType, DenseElementsAttr::get(lanesType, 0.0f));
  Value padding = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  SmallVector<bool> inBounds = {true};

  // sum_k A[row, k] * B[column + i, k] for i < count, as `count` vectors of
  // 16 partial sums.
  auto dotProducts = [&](OpBuilder &nb, Value row, Value column,
                         int64_t count) -> SmallVector<Value> {
    SmallVector<Value> init(count, zeros);
    scf::ForOp loop;
    if (quantized) {
      loop = scf::ForOp::create(
          nb, loc, index(nb, 0), index(nb, depth / kQuantBlockSize),
          index(nb, 1), init,
          [&](OpBuilder &lb, Location, Value block, ValueRange sums) {
            Value start = arith::MulIOp::create(lb, loc, block,
                                                index(lb, kQuantBlockSize));
            SmallVector<Value> a;
            for (int64_t at = 0; at < kQuantBlockSize; at += lanes)
              a.push_back(vector::TransferReadOp::create(
                  lb, loc, lanesType, lhs,
                  ValueRange{row, arith::AddIOp::create(lb, loc, start,
                                                        index(lb, at))},
                  padding, inBounds));
            // Q4_0's values as stored (q + 8): the block's dot product with
            // a row of B is then sum(a * (q + 8)) - 8 * sum(a), whose second
            // term is made here once for all `count` rows, as one vector
            // whose lanes sum to it.
            bool offsetValues = quantized->format == BlockFormat::q4_0;
            Value correction;
            if (offsetValues) {
              Value sumA = a[0];
              for (size_t j = 1; j < a.size(); ++j)
                sumA = arith::AddFOp::create(lb, loc, sumA, a[j]);
              correction = arith::MulFOp::create(
                  lb, loc, sumA,
                  arith::ConstantOp::create(
                      lb, loc, lanesType,
                      DenseElementsAttr::get(lanesType, -8.0f)));
            }
            SmallVector<Value> next;
            for (int64_t i = 0; i < count; ++i) {
              Value n = arith::AddIOp::create(lb, loc, column, index(lb, i));
              int64_t offset = 0;
              SmallVector<Value> values = readBlockValues(
                  lb, loc, quantized->blocks, quantized->format, n, block,
                  lanes, offsetValues ? &offset : nullptr);
              Value dot = offset
                              ? vector::FMAOp::create(lb, loc, a[0], values[0],
                                                      correction)
                                    .getResult()
                              : arith::MulFOp::create(lb, loc, a[0], values[0])
                                    .getResult();
              for (size_t j = 1; j < values.size(); ++j)
                dot = vector::FMAOp::create(lb, loc, a[j], values[j], dot);
              Value scale =
                  readBlockScale(lb, loc, quantized->blocks, n, block, lanes);
              next.push_back(
                  vector::FMAOp::create(lb, loc, dot, scale, sums[i]));
            }
            scf::YieldOp::create(lb, loc, next);
          });
    } else {
      loop = scf::ForOp::create(
          nb, loc, index(nb, 0), index(nb, depth), index(nb, lanes), init,
          [&](OpBuilder &lb, Location, Value k, ValueRange sums) {
            Value a = vector::TransferReadOp::create(
                lb, loc, lanesType, lhs, ValueRange{row, k}, padding, inBounds);
            SmallVector<Value> next;
            for (int64_t i = 0; i < count; ++i) {
              Value n = arith::AddIOp::create(lb, loc, column, index(lb, i));
              Value bRow = readAsF32(lb, loc, lanesType, rhs, ValueRange{n, k});
              next.push_back(vector::FMAOp::create(lb, loc, a, bRow, sums[i]));
            }
            scf::YieldOp::create(lb, loc, next);
          });
    }
    SmallVector<Value> totals;
    for (Value sum : loop.getResults())
      totals.push_back(vector::ReductionOp::create(
          nb, loc, vector::CombiningKind::ADD, sum));
    return totals;
  };

  // Tasks of `perTask` columns.
  Value tasks = affine::AffineApplyOp::create(
      b, loc,
      AffineMap::get(0, 1,
                     getAffineSymbolExpr(0, b.getContext()).ceilDiv(perTask)),
      ValueRange{columns});
  auto forall = scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{tasks},
                                      ValueRange{acc}, std::nullopt);
  {
    OpBuilder fb(forall.getTerminator());
    Value task = forall.getInductionVar(0);
    Value out = forall.getRegionIterArgs()[0];
    MLIRContext *ctx = fb.getContext();
    AffineExpr t = getAffineDimExpr(0, ctx);
    AffineExpr n = getAffineSymbolExpr(0, ctx);
    Value first = affine::AffineApplyOp::create(
        fb, loc, AffineMap::get(1, 0, t * perTask), task);
    Value count = affine::AffineMinOp::create(
        fb, loc,
        AffineMap::get(
            1, 1, {getAffineConstantExpr(perTask, ctx), n - t * perTask}, ctx),
        ValueRange{task, columns});
    // Columns in full register tiles, then the rest one by one.
    Value full = affine::AffineApplyOp::create(
        fb, loc, AffineMap::get(0, 1, n.floorDiv(kColumns) * kColumns, ctx),
        ValueRange{count});
    SmallVector<OpFoldResult> offsets = {fb.getIndexAttr(0), first};
    SmallVector<OpFoldResult> sizes = {rows, count};
    SmallVector<OpFoldResult> strides = {fb.getIndexAttr(1),
                                         fb.getIndexAttr(1)};
    Value block =
        tensor::ExtractSliceOp::create(fb, loc, out, offsets, sizes, strides);
    auto tiles = scf::ForOp::create(
        fb, loc, c0, full, index(fb, kColumns), ValueRange{block},
        [&](OpBuilder &tb, Location, Value tile, ValueRange tileArgs) {
          Value column = arith::AddIOp::create(tb, loc, first, tile);
          auto perRow = scf::ForOp::create(
              tb, loc, c0, rows, c1, tileArgs,
              [&](OpBuilder &rb, Location, Value row, ValueRange rowArgs) {
                SmallVector<Value> totals =
                    dotProducts(rb, row, column, kColumns);
                Value sums = vector::FromElementsOp::create(
                    rb, loc, columnsType, totals);
                Value old = vector::TransferReadOp::create(
                    rb, loc, columnsType, rowArgs[0], ValueRange{row, tile},
                    padding, inBounds);
                Value updated = arith::AddFOp::create(rb, loc, old, sums);
                Value written = vector::TransferWriteOp::create(
                                    rb, loc, updated, rowArgs[0],
                                    ValueRange{row, tile}, inBounds)
                                    .getResult();
                scf::YieldOp::create(rb, loc, written);
              });
          scf::YieldOp::create(tb, loc, perRow.getResults());
        });
    auto rest = scf::ForOp::create(
        fb, loc, full, count, c1, tiles.getResults(),
        [&](OpBuilder &tb, Location, Value tile, ValueRange tileArgs) {
          Value column = arith::AddIOp::create(tb, loc, first, tile);
          auto perRow = scf::ForOp::create(
              tb, loc, c0, rows, c1, tileArgs,
              [&](OpBuilder &rb, Location, Value row, ValueRange rowArgs) {
                Value total = dotProducts(rb, row, column, 1).front();
                Value old = tensor::ExtractOp::create(rb, loc, rowArgs[0],
                                                      ValueRange{row, tile});
                Value updated = arith::AddFOp::create(rb, loc, old, total);
                Value written = tensor::InsertOp::create(
                    rb, loc, updated, rowArgs[0], ValueRange{row, tile});
                scf::YieldOp::create(rb, loc, written);
              });
          scf::YieldOp::create(tb, loc, perRow.getResults());
        });
    fb.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(fb, loc, rest.getResult(0), out,
                                          offsets, sizes, strides);
  }
  return forall.getResult(0);
}

Value transformer::buildRowKernel(OpBuilder &b, linalg::LinalgOp op) {
  Location loc = op.getLoc();
  Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
  Value acc = op.getDpsInits()[0];
  Type f32 = b.getF32Type();
  const int64_t lanes = getLanes(op);
  // B in panels [n / width, k, width] (isRowForm), or 0: B is [k, n].
  const int64_t panelWidth = getPanelWidth(op);
  auto lanesType = VectorType::get({lanes}, f32);
  auto index = [&](OpBuilder &nb, int64_t value) -> Value {
    return arith::ConstantIndexOp::create(nb, loc, value);
  };
  Value c0 = index(b, 0), c1 = index(b, 1);
  Value rows = tensor::DimOp::create(b, loc, acc, 0);
  Value columns = tensor::DimOp::create(b, loc, acc, 1);
  int64_t perTask = getRowColumnsPerTask(op);
  const int64_t group = getRowFormGroup(op);
  // Groups of rows take kRowTileColumns per register tile; single rows
  // (a decode step, the rows past the last group) a wider one.
  const int64_t groupVectors = kRowTileColumns / lanes;
  const int64_t rowVectors = getSingleRowTileVectors(op, perTask);
  const int64_t tileColumns = rowVectors * lanes;
  Value depth = tensor::DimOp::create(b, loc, lhs, 1);
  Value padding = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  SmallVector<bool> inBounds = {true};
  MLIRContext *ctx = b.getContext();
  AffineExpr s0 = getAffineSymbolExpr(0, ctx);
  Value tasks = affine::AffineApplyOp::create(
      b, loc, AffineMap::get(0, 1, s0.ceilDiv(perTask)), ValueRange{columns});
  auto forall = scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{tasks},
                                      ValueRange{acc}, std::nullopt);
  OpBuilder fb(forall.getTerminator());
  Value task = forall.getInductionVar(0);
  Value out = forall.getRegionIterArgs()[0];
  AffineExpr t = getAffineDimExpr(0, ctx);
  Value first = affine::AffineApplyOp::create(
      fb, loc, AffineMap::get(1, 0, t * perTask), task);
  // A multiple of tileColumns: the columns are (isRowForm,
  // getSingleRowTileVectors).
  Value count = affine::AffineMinOp::create(
      fb, loc,
      AffineMap::get(
          1, 1, {getAffineConstantExpr(perTask, ctx), s0 - t * perTask}, ctx),
      ValueRange{task, columns});
  SmallVector<OpFoldResult> offsets = {fb.getIndexAttr(0), first};
  SmallVector<OpFoldResult> sizes = {rows, count};
  SmallVector<OpFoldResult> strides = {fb.getIndexAttr(1), fb.getIndexAttr(1)};
  Value block =
      tensor::ExtractSliceOp::create(fb, loc, out, offsets, sizes, strides);
  // For `vectors` x lanes columns and `groupRows` rows of A: groupRows x
  // `vectors` accumulators (C's values) along k, each step `vectors`
  // contiguous loads of B's row k, shared by the rows, and one broadcast of
  // A per row. The rows past the last whole group go one by one.
  auto buildRows = [&](OpBuilder &rb, Value tile, Value column, Value row,
                       int64_t groupRows, int64_t vectors, Value written) {
    SmallVector<Value> init, at, rowOf;
    for (int64_t g = 0; g < groupRows; ++g) {
      rowOf.push_back(
          g == 0
              ? row
              : arith::AddIOp::create(rb, loc, row, index(rb, g)).getResult());
      for (int64_t i = 0; i < vectors; ++i) {
        if (g == 0)
          at.push_back(
              arith::AddIOp::create(rb, loc, tile, index(rb, i * lanes)));
        init.push_back(vector::TransferReadOp::create(
            rb, loc, lanesType, written, ValueRange{rowOf[g], at[i]}, padding,
            inBounds));
      }
    }
    // Where B's vectors are: columns n, or in panels, (n / width, n mod
    // width). The tile's first column is a multiple of the width (tiles are
    // multiples of kRowTileColumns), so its vectors lie at constant offsets
    // in consecutive panels; the vectors of one panel share its index value.
    SmallVector<Value> bColumns, bPanels;
    Value firstPanel =
        panelWidth
            ? arith::DivUIOp::create(rb, loc, column, index(rb, panelWidth))
                  .getResult()
            : Value();
    llvm::SmallDenseMap<int64_t, Value> panelAt;
    for (int64_t i = 0; i < vectors; ++i) {
      if (!panelWidth) {
        bColumns.push_back(
            arith::AddIOp::create(rb, loc, column, index(rb, i * lanes)));
        continue;
      }
      int64_t panel = i * lanes / panelWidth;
      Value &at = panelAt[panel];
      if (!at)
        at = panel == 0
                 ? firstPanel
                 : arith::AddIOp::create(rb, loc, firstPanel, index(rb, panel))
                       .getResult();
      bPanels.push_back(at);
      bColumns.push_back(index(rb, i * lanes % panelWidth));
    }
    auto sums = scf::ForOp::create(
        rb, loc, c0, depth, c1, init,
        [&](OpBuilder &kb, Location, Value k, ValueRange partial) {
          SmallVector<Value> bRow;
          for (int64_t i = 0; i < vectors; ++i)
            bRow.push_back(
                readAsF32(kb, loc, lanesType, rhs,
                          panelWidth ? ValueRange{bPanels[i], k, bColumns[i]}
                                     : ValueRange{k, bColumns[i]}));
          SmallVector<Value> next;
          for (int64_t g = 0; g < groupRows; ++g) {
            Value a = tensor::ExtractOp::create(kb, loc, lhs,
                                                ValueRange{rowOf[g], k});
            Value splat = vector::BroadcastOp::create(kb, loc, lanesType, a);
            for (int64_t i = 0; i < vectors; ++i)
              next.push_back(vector::FMAOp::create(kb, loc, splat, bRow[i],
                                                   partial[g * vectors + i]));
          }
          scf::YieldOp::create(kb, loc, next);
        });
    for (int64_t g = 0; g < groupRows; ++g)
      for (int64_t i = 0; i < vectors; ++i)
        written = vector::TransferWriteOp::create(
                      rb, loc, sums.getResult(g * vectors + i), written,
                      ValueRange{rowOf[g], at[i]}, inBounds)
                      .getResult();
    return written;
  };
  Value groupedRows = affine::AffineApplyOp::create(
      fb, loc, AffineMap::get(0, 1, s0 - s0 % group), ValueRange{rows});
  auto tiles = scf::ForOp::create(
      fb, loc, c0, count, index(fb, tileColumns), ValueRange{block},
      [&](OpBuilder &tb, Location, Value tile, ValueRange tileArgs) {
        Value column = arith::AddIOp::create(tb, loc, first, tile);
        Value written = tileArgs[0];
        if (group > 1)
          written =
              scf::ForOp::create(
                  tb, loc, c0, index(tb, tileColumns),
                  index(tb, kRowTileColumns), ValueRange{written},
                  [&](OpBuilder &sb, Location, Value sub, ValueRange subArgs) {
                    Value subTile = arith::AddIOp::create(sb, loc, tile, sub);
                    Value subColumn =
                        arith::AddIOp::create(sb, loc, column, sub);
                    auto grouped = scf::ForOp::create(
                        sb, loc, c0, groupedRows, index(sb, group),
                        ValueRange{subArgs[0]},
                        [&](OpBuilder &rb, Location, Value row,
                            ValueRange rowArgs) {
                          scf::YieldOp::create(
                              rb, loc,
                              buildRows(rb, subTile, subColumn, row, group,
                                        groupVectors, rowArgs[0]));
                        });
                    scf::YieldOp::create(sb, loc, grouped.getResults());
                  })
                  .getResult(0);
        auto perRow = scf::ForOp::create(
            tb, loc, group > 1 ? groupedRows : c0, rows, c1,
            ValueRange{written},
            [&](OpBuilder &rb, Location, Value row, ValueRange rowArgs) {
              scf::YieldOp::create(
                  rb, loc,
                  buildRows(rb, tile, column, row, 1, rowVectors, rowArgs[0]));
            });
        scf::YieldOp::create(tb, loc, perRow.getResults());
      });
  fb.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(fb, loc, tiles.getResult(0), out,
                                        offsets, sizes, strides);
  return forall.getResult(0);
}
