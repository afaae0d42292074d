//===- PanelContractions.cpp - Cache tiles that read B in panels ----------===//
//
// A constant weight's copy made in panels ([n / r, k, r], see
// CacheConstantWeights.cpp) is what the schedule would otherwise make on
// every call: per k block, B's block copied into a buffer, then each
// register tile's k x r panel into another. Read as it is, those copies go:
// at 128 rows (a GPT-2 prefill's linear) they were 17% of the time.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/Passes.h"

#include "DotKernel.h"
#include "Panels.h"
#include "TileSizes.h"
#include "Transformer/Codegen/CPU/Target/CPUTarget.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERCPUPANELCONTRACTIONSPASS
#include "Transformer/Codegen/CPU/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

namespace {

/// The `panels` panels (null: dynamic) of `width` columns that a cache tile
/// reads: its B
/// when that is the whole weight, or a slice of the weight from the tile's
/// first panel (the column offset within a panel, `n mod width` of the
/// tile's first column, is 0: cache tiles are a whole number of register
/// tiles wide). Null when B is neither.
Value getTilePanels(RewriterBase &rewriter, Value b, OpFoldResult panels,
                    int64_t width) {
  auto type = cast<RankedTensorType>(b.getType());
  auto slice = b.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice) {
    std::optional<int64_t> count =
        panels ? getConstantIntValue(panels) : std::nullopt;
    return count && type.getDimSize(0) == *count && type.getDimSize(2) == width
               ? b
               : Value();
  }
  auto sourceType = slice.getSourceType();
  if (sourceType.getRank() != 3 || slice.getResultType().getRank() != 3 ||
      !slice.hasUnitStride() || sourceType.getDimSize(2) != width)
    return {};
  SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
  offsets[2] = rewriter.getIndexAttr(0);
  // A dynamic number of panels is the slice's own (the tiling's extent of
  // `n floordiv width` over a whole number of panels).
  SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
  if (std::optional<int64_t> count =
          panels ? getConstantIntValue(panels) : std::nullopt) {
    std::optional<int64_t> sliced = getConstantIntValue(sizes[0]);
    if (sliced && *sliced != *count)
      return {};
    sizes[0] = panels;
  } else if (getConstantIntValue(sizes[0])) {
    return {};
  }
  sizes[2] = rewriter.getIndexAttr(width);
  rewriter.setInsertionPoint(slice);
  return tensor::ExtractSliceOp::create(rewriter, slice.getLoc(),
                                        slice.getSource(), offsets, sizes,
                                        slice.getMixedStrides());
}

/// `panel` ([rows, width] of bf16 or f16, a k block of one panel) widened
/// into `into` ([rows, width] f32): per row, width / lanes vector loads
/// widened in registers and stored.
Value widenPanel(OpBuilder &b, Location loc, Value panel, Value into,
                 int64_t lanes) {
  auto type = cast<RankedTensorType>(into.getType());
  int64_t width = type.getDimSize(1);
  auto vectorType = VectorType::get({lanes}, b.getF32Type());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value rows = arith::ConstantIndexOp::create(b, loc, type.getDimSize(0));
  auto loop = scf::ForOp::create(
      b, loc, zero, rows, one, ValueRange{into},
      [&](OpBuilder &rb, Location l, Value k, ValueRange args) {
        Value out = args[0];
        for (int64_t at = 0; at < width; at += lanes) {
          Value column = arith::ConstantIndexOp::create(rb, l, at);
          Value v = readAsF32(rb, l, vectorType, panel, ValueRange{k, column});
          out = vector::TransferWriteOp::create(
                    rb, l, v, out, ValueRange{k, column}, ArrayRef<bool>{true})
                    .getResult();
        }
        scf::YieldOp::create(rb, l, out);
      });
  return loop.getResult(0);
}

/// The k block for a depth of `depth` given the target's `blockK`: the
/// largest multiple of 8 from `blockK` down to its half that divides the
/// depth, so that every block has the same static size (Qwen2's K = 896:
/// four blocks of 224 rather than three of 256 and one of 128, whose
/// register tiles would be a second copy of every variant: compile time
/// and code size for no speed); `blockK` itself when none does.
int64_t getDividingBlock(int64_t depth, int64_t blockK) {
  if (depth % blockK == 0)
    return blockK;
  int64_t block = getDividingSize(depth, blockK, /*multiple=*/8);
  return block ? block : blockK;
}

/// The k block of a cache tile of `rows` rows (dynamic: the target's cache
/// tile's) that reads B in panels of `width` columns to a depth of `depth`:
/// the whole depth in one block where the tile's rows of A and one panel of
/// that depth fill at most half the L2 (the rest left to C and the next
/// panels), else the target's k block. The schedule copies nothing from f32
/// panels, so they need not fit the L1 as the target's k block (the packing
/// copy's) does: the register tiles stream them from L2, and in one block
/// load and store their accumulators once (512^3 in one block rather than
/// four of 128: 2-3% faster on Zen 4). Blocks longer than the target's
/// that still leave several gained nothing measurable (GPT-2's 3072 in
/// blocks of 512, Qwen2's 896 in 448).
int64_t getPanelBlockK(const CPUTarget &target, int64_t rows, int64_t width,
                       int64_t depth) {
  CacheTile cache = target.contractionCacheTile();
  if (ShapedType::isDynamic(rows))
    rows = cache.m;
  return depth * (rows + width) * 4 <= static_cast<int64_t>(target.l2Bytes / 2)
             ? std::max(depth, cache.k)
             : cache.k;
}

/// Computes the cache tile `op` (of `width`-column panels `b`) block by
/// block along k, and in each block panel by panel: a loop over k blocks
/// (getDividingBlock of getPanelBlockK; then a remainder block where none
/// divides K), in it a loop over the panels, in it a
/// plain contraction of the tile's rows, the panel's k block (a contiguous
/// [k, width] slice) and the panel's columns of C, tagged "mnk_panel". The
/// schedule tiles it into register tiles (no packing: the panel is already
/// what packing makes). Failure when the tile is not a whole number of
/// panels wide or K is dynamic.
LogicalResult rewriteTile(RewriterBase &rewriter, linalg::LinalgOp op,
                          int64_t width, const CPUTarget &target) {
  Value init = op.getDpsInits()[0];
  auto initType = cast<RankedTensorType>(init.getType());
  if (initType.getRank() != 2)
    return failure();
  // The tile's panels: its columns are a multiple of the width, also when
  // they are dynamic (the last cache tile of a weight whose columns are not
  // a multiple of the cache tile's), since the weight's and the cache
  // tile's columns both are.
  int64_t columns = initType.getDimSize(1);
  if (!ShapedType::isDynamic(columns) && columns % width != 0)
    return failure();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  OpFoldResult panels = ShapedType::isDynamic(columns)
                            ? OpFoldResult(Value())
                            : rewriter.getIndexAttr(columns / width);
  Value b = getTilePanels(rewriter, op.getDpsInputs()[1], panels, width);
  Value a = op.getDpsInputs()[0];
  auto aType = cast<RankedTensorType>(a.getType());
  int64_t depth = aType.getDimSize(1);
  if (!b || ShapedType::isDynamic(depth))
    return failure();
  rewriter.setInsertionPoint(op);
  auto bType = cast<RankedTensorType>(b.getType());
  Value rows = tensor::DimOp::create(rewriter, loc, init, 0);
  Attribute tag = rewriter.getStringAttr("mnk_panel");
  // A 16-bit panel's k block is widened to f32 once, into a buffer made
  // once per cache tile, for all the tile's register tiles along m, which
  // would otherwise each widen every vector of B they load.
  int64_t lanes = target.f32Lanes();
  bool widen =
      isWidenedToF32(bType.getElementType()) && lanes > 0 && width % lanes == 0;
  // A widened block is a copy that the register tiles read: the target's k
  // block, which keeps it in L1.
  int64_t blockK = getDividingBlock(
      depth,
      widen ? target.contractionCacheTile().k
            : getPanelBlockK(target, initType.getDimSize(0), width, depth));
  Type f32 = rewriter.getF32Type();
  auto widenedBuffer = [&](int64_t size) -> Value {
    return widen ? tensor::EmptyOp::create(rewriter, loc, {size, width}, f32)
                       .getResult()
                 : Value();
  };

  // One k block [k0, k0 + size) of every panel into `acc`.
  auto buildBlock = [&](OpBuilder &builder, Value k0, int64_t size, Value acc,
                        Value widened) -> Value {
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    Value count = getValueOrCreateConstantIndexOp(
        builder, loc, tensor::getMixedSize(builder, loc, b, 0));
    auto panelLoop = scf::ForOp::create(
        builder, loc, zero, count, one, ValueRange{acc},
        [&](OpBuilder &nested, Location l, Value p, ValueRange args) {
          OpFoldResult sizeK = nested.getIndexAttr(size);
          OpFoldResult one1 = nested.getIndexAttr(1);
          Value aBlock = tensor::ExtractSliceOp::create(
              nested, l,
              RankedTensorType::get({aType.getDimSize(0), size},
                                    aType.getElementType()),
              a, ArrayRef<OpFoldResult>{nested.getIndexAttr(0), k0},
              ArrayRef<OpFoldResult>{tensor::getMixedSize(nested, l, a, 0),
                                     sizeK},
              ArrayRef<OpFoldResult>{one1, one1});
          Value panel = tensor::ExtractSliceOp::create(
              nested, l,
              RankedTensorType::get({size, width}, bType.getElementType()), b,
              ArrayRef<OpFoldResult>{p, k0, nested.getIndexAttr(0)},
              ArrayRef<OpFoldResult>{one1, sizeK, nested.getIndexAttr(width)},
              ArrayRef<OpFoldResult>{one1, one1, one1});
          if (widened)
            panel = widenPanel(nested, l, panel, widened, lanes);
          Value column = affine::makeComposedAffineApply(
              nested, l, nested.getAffineDimExpr(0) * width, {p});
          SmallVector<OpFoldResult> cOffsets = {nested.getIndexAttr(0), column};
          SmallVector<OpFoldResult> cSizes = {rows, nested.getIndexAttr(width)};
          SmallVector<OpFoldResult> cStrides = {one1, one1};
          Value c = tensor::ExtractSliceOp::create(nested, l, args[0], cOffsets,
                                                   cSizes, cStrides);
          SmallVector<AffineMap> maps =
              linalg::MatmulOp::getDefaultIndexingMaps(nested.getContext());
          auto contract = linalg::ContractOp::create(
              nested, l, TypeRange{c.getType()}, ValueRange{aBlock, panel},
              ValueRange{c}, nested.getAffineMapArrayAttr(maps));
          contract->setAttr(kContractionAttrName, tag);
          Value updated = tensor::InsertSliceOp::create(
              nested, l, contract->getResult(0), args[0], cOffsets, cSizes,
              cStrides);
          scf::YieldOp::create(nested, l, updated);
        });
    return panelLoop.getResult(0);
  };

  int64_t fullBlocks = depth / blockK, rest = depth % blockK;
  Value result = init;
  if (fullBlocks > 0) {
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value end =
        arith::ConstantIndexOp::create(rewriter, loc, fullBlocks * blockK);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, blockK);
    Value widened = widenedBuffer(blockK);
    auto blockLoop = scf::ForOp::create(
        rewriter, loc, zero, end, step, ValueRange{result},
        [&](OpBuilder &nested, Location l, Value k0, ValueRange args) {
          scf::YieldOp::create(
              nested, l, buildBlock(nested, k0, blockK, args[0], widened));
        });
    result = blockLoop.getResult(0);
  }
  if (rest > 0) {
    Value k0 =
        arith::ConstantIndexOp::create(rewriter, loc, fullBlocks * blockK);
    result = buildBlock(rewriter, k0, rest, result, widenedBuffer(rest));
  }
  rewriter.replaceOp(op, result);
  return success();
}

/// A contraction that reads panels but is not a cache tile: B copied back
/// into k x n order ([n / r, k, r] -> [k, n / r, r] -> [k, n]) on each call,
/// and read as a plain contraction's.
void readUnpackedCopy(RewriterBase &rewriter, linalg::LinalgOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value panels = op.getDpsInputs()[1];
  auto type = cast<RankedTensorType>(panels.getType());
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(rewriter, loc, panels);
  Value empty = tensor::EmptyOp::create(
      rewriter, loc, {sizes[1], sizes[0], sizes[2]}, type.getElementType());
  Value transposed = linalg::TransposeOp::create(rewriter, loc, panels, empty,
                                                 ArrayRef<int64_t>{1, 0, 2})
                         ->getResult(0);
  int64_t count = type.getDimSize(0), width = type.getDimSize(2);
  int64_t columns = ShapedType::isDynamic(count) || ShapedType::isDynamic(width)
                        ? ShapedType::kDynamic
                        : count * width;
  Value b = tensor::CollapseShapeOp::create(
      rewriter, loc,
      RankedTensorType::get({type.getDimSize(1), columns},
                            type.getElementType()),
      transposed, SmallVector<ReassociationIndices>{{0}, {1, 2}});
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  maps[1] = linalg::MatmulOp::getDefaultIndexingMaps(op->getContext())[1];
  rewriter.modifyOpInPlace(op, [&] {
    op->setAttr("indexing_maps", rewriter.getAffineMapArrayAttr(maps));
    op.getDpsInputOperands()[1]->set(b);
  });
}

struct PanelContractionsPass
    : public transformer::impl::TransformerCPUPanelContractionsPassBase<
          PanelContractionsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, int64_t>> readers;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (int64_t width = getPanelWidth(op))
        readers.emplace_back(op, width);
    });
    IRRewriter rewriter(&getContext());
    CPUTarget target = CPUTarget::forOp(getOperation());
    for (auto [op, width] : readers) {
      auto tag = op->getAttrOfType<StringAttr>(kContractionAttrName);
      if (tag && tag.getValue() == "mnk_tile" &&
          succeeded(rewriteTile(rewriter, op, width, target)))
        continue;
      readUnpackedCopy(rewriter, op);
    }
  }
};

} // namespace
