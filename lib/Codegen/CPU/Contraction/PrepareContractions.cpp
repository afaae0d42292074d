//===- PrepareContractions.cpp - Tag contractions for the CPU schedule ----===//
//
// Matches contractions by what they compute (the contraction interface and
// the indexing maps), not by op name, so that linalg.matmul in all its forms,
// linalg.batch_matmul and linalg.generic contractions take the same path.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/Passes.h"

#include "DotKernel.h"
#include "Elementwise.h"
#include "Panels.h"
#include "QuantizedBlocks.h"
#include "Transformer/Codegen/CPU/Target/CPUTarget.h"
#include "Transformer/Codegen/Common/Passes.h"
#include "WeightCache.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERCPUPREPARECONTRACTIONSPASS
#include "Transformer/Codegen/CPU/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

namespace {

/// The loop groups of a contraction whose loops come as (batch..., m..., n...,
/// k...), each group in increasing order; std::nullopt for any other order.
std::optional<SmallVector<ReassociationIndices>>
getCanonicalLoopGroups(linalg::LinalgOp op) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.empty() || dims->k.empty())
    return std::nullopt;
  SmallVector<ReassociationIndices> groups;
  int64_t next = 0;
  for (const SmallVector<unsigned, 2> &group :
       {dims->batch, dims->m, dims->n, dims->k}) {
    if (group.empty())
      continue;
    ReassociationIndices indices;
    for (unsigned dim : group) {
      if (dim != next++)
        return std::nullopt;
      indices.push_back(dim);
    }
    groups.push_back(indices);
  }
  if (next != op.getNumLoops())
    return std::nullopt;
  // The result must be indexed (batch..., m..., n...): n is its contiguous
  // dimension, which the register tile vectorizes.
  AffineMap resultMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  int64_t resultRank = next - static_cast<int64_t>(dims->k.size());
  if (resultMap.getNumResults() != resultRank)
    return std::nullopt;
  for (int64_t i = 0; i < resultRank; ++i)
    if (resultMap.getResult(i) != getAffineDimExpr(i, op->getContext()))
      return std::nullopt;
  return groups;
}

/// The register tile of the CPU schedule (Schedules/contraction.mlir, its
/// sizes from the target: CPUTarget::contractionRegisterTile): n is padded
/// to a multiple of it so that every register tile is full and vectorized.
/// m, static or dynamic, is not: the schedule computes the rows past the
/// last multiple of the tile's m in pairs of rows (static 2 x n tiles, also
/// vectorized), where a pad would copy A and the accumulator on every call
/// and keep the epilogue out of the cache tiles (the slice of the padded
/// result lies between them). With 6-row tiles a GPT-2 block at 128 tokens
/// was 3-4% faster unpadded on Zen 3 (128 rows: 21 full tiles and 2 rows).

/// A cast of a padded result's slice to an unranked tensor (which a program
/// passes to `printMemrefF32`) would carry the padded buffer's strides into
/// the callee: it casts a dense copy instead, so that the callee sees the
/// layout the unpadded op would have had.
void densifyUnrankedCasts(IRRewriter &rewriter, ValueRange slices) {
  for (Value slice : slices)
    for (OpOperand &use : llvm::make_early_inc_range(slice.getUses())) {
      auto castOp = dyn_cast<tensor::CastOp>(use.getOwner());
      if (!castOp || !isa<UnrankedTensorType>(castOp.getType()))
        continue;
      rewriter.setInsertionPoint(castOp);
      Value copy = bufferization::AllocTensorOp::create(
          rewriter, castOp.getLoc(), cast<RankedTensorType>(slice.getType()),
          tensor::createDynamicDimValues(rewriter, castOp.getLoc(), slice),
          /*copy=*/slice);
      rewriter.modifyOpInPlace(castOp, [&] { use.set(copy); });
    }
}

/// `op`'s inputs for computing its result at the (padded) shape `padded`
/// (`op` indexes its result by the identity): each input padded with zeros
/// where a padded loop indexes it, and `slice` (a slice of a padded value),
/// if given, replaced by its source. Failure where an input would need
/// padding in a dynamic dimension.
FailureOr<SmallVector<Value>> padInputs(RewriterBase &rewriter,
                                        linalg::LinalgOp op,
                                        ArrayRef<int64_t> padded,
                                        tensor::ExtractSliceOp slice) {
  // Each input's padded shape (empty: used as it is), all known before any
  // pad is made.
  SmallVector<SmallVector<int64_t>> shapes;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    shapes.emplace_back();
    if (!type || (slice && input->get() == slice.getResult()))
      continue;
    SmallVector<int64_t> shape(type.getShape());
    bool needed = false;
    for (auto [dim, expr] :
         llvm::enumerate(op.getMatchingIndexingMap(input).getResults())) {
      auto loop = dyn_cast<AffineDimExpr>(expr);
      if (!loop)
        return failure();
      int64_t size = padded[loop.getPosition()];
      if (size == shape[dim])
        continue;
      if (ShapedType::isDynamic(size) || ShapedType::isDynamic(shape[dim]))
        return failure();
      shape[dim] = size;
      needed = true;
    }
    if (needed)
      shapes.back() = shape;
  }
  SmallVector<Value> inputs;
  for (auto [input, shape] : llvm::zip(op.getDpsInputs(), shapes)) {
    if (slice && input == slice.getResult()) {
      inputs.push_back(slice.getSource());
      continue;
    }
    if (shape.empty()) {
      inputs.push_back(input); // Also a scalar (linalg.fill's value).
      continue;
    }
    auto type = cast<RankedTensorType>(input.getType());
    Location loc = op.getLoc();
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getZeroAttr(type.getElementType()));
    inputs.push_back(tensor::createPadHighOp(type.clone(shape), input, zero,
                                             /*nofold=*/false, loc, rewriter));
  }
  return inputs;
}

/// `op` (element-wise, one result) computed at the size of `like` (its
/// result padded), on the inputs of padInputs, into a tensor.empty of that
/// size. Returns the new op, or null (nothing built) where padInputs fails.
linalg::LinalgOp buildPaddedElementwise(RewriterBase &rewriter,
                                        linalg::LinalgOp op, Value like,
                                        tensor::ExtractSliceOp slice = {}) {
  auto type = cast<RankedTensorType>(like.getType());
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  FailureOr<SmallVector<Value>> inputs =
      padInputs(rewriter, op, type.getShape(), slice);
  if (failed(inputs))
    return {};
  Value empty = tensor::EmptyOp::create(
      rewriter, op.getLoc(), tensor::getMixedSizes(rewriter, op.getLoc(), like),
      type.getElementType());
  IRMapping mapping;
  for (auto [operand, input] : llvm::zip(op.getDpsInputs(), *inputs))
    mapping.map(operand, input);
  mapping.map(op.getDpsInits()[0], empty);
  Operation *padded = rewriter.clone(*op, mapping);
  padded->getResult(0).setType(type);
  return cast<linalg::LinalgOp>(padded);
}

/// A pad of the accumulator (`pad`, the padded contraction's init) made by
/// an element-wise op that does not read its init (the zero fill of a
/// matmul, a linear's bias broadcast) and that nothing else uses: that op
/// computes the padded accumulator itself, its inputs padded where a padded
/// loop indexes them (a bias by n). Else the op runs as a kernel of its
/// own, and the pad copies its result into a second buffer that it first
/// fills, three passes over C before the contraction starts, where the
/// padded op fuses into the contraction's cache tiles like an unpadded one.
/// What the padding holds does not matter: it reaches only the padded
/// columns of the result, which are sliced off.
void padAccumulatorProducer(IRRewriter &rewriter, tensor::PadOp pad) {
  // A dynamic padded shape would be read from the pad itself.
  auto producer = pad.getSource().getDefiningOp<linalg::LinalgOp>();
  if (!producer || !producer->hasOneUse() ||
      !isElementwiseIgnoringInit(producer) ||
      !pad.getResultType().hasStaticShape())
    return;
  linalg::LinalgOp padded =
      buildPaddedElementwise(rewriter, producer, pad.getResult());
  if (!padded)
    return;
  rewriter.replaceOp(pad, padded->getResults());
  rewriter.eraseOp(producer);
}

/// Moves the slice of a padded result (`slice`) past the element-wise ops
/// that read it alone (GELU, a bias added after the product; inputs that
/// need padding must be small: indexed by fewer loops than the result):
/// they compute at the padded size, in the contraction's cache tiles,
/// instead of as a kernel of their own over the slice.
void sinkResultSlice(IRRewriter &rewriter, tensor::ExtractSliceOp slice) {
  while (slice->hasOneUse()) {
    auto consumer = dyn_cast<linalg::LinalgOp>(*slice->user_begin());
    if (!consumer || !isElementwiseIgnoringInit(consumer))
      return;
    int64_t rank = slice.getType().getRank();
    for (OpOperand *input : consumer.getDpsInputOperands())
      if (input->get() != slice.getResult() &&
          consumer.getMatchingIndexingMap(input).getNumResults() >= rank)
        return;
    linalg::LinalgOp padded =
        buildPaddedElementwise(rewriter, consumer, slice.getSource(), slice);
    if (!padded)
      return;
    rewriter.setInsertionPointAfter(padded);
    auto sunk = tensor::ExtractSliceOp::create(
        rewriter, slice.getLoc(),
        cast<RankedTensorType>(consumer->getResult(0).getType()),
        padded->getResult(0), slice.getMixedOffsets(), slice.getMixedSizes(),
        slice.getMixedStrides());
    rewriter.replaceOp(consumer, sunk.getResult());
    rewriter.eraseOp(slice);
    slice = sunk;
  }
}

/// Pads the loops of a tagged contraction with zeros up to multiples of the
/// register tile when they are not known to be: n when odd or dynamic (m
/// never, see above). The padded op computes into a padded result whose slice
/// replaces the original; the padding costs one copy of the operands, far
/// less than the scalar remainder loops it removes. Returns the op to tag.
linalg::LinalgOp padToRegisterTiles(IRRewriter &rewriter, linalg::LinalgOp op,
                                    int64_t mLoop, RegisterTile tile) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> multiples(ranges.size(), 1);
  multiples[mLoop + 1] = tile.n;
  bool needed = false;
  for (auto [range, multiple] : llvm::zip(ranges, multiples))
    needed |=
        multiple > 1 && (ShapedType::isDynamic(range) || range % multiple != 0);
  if (!needed)
    return op;
  // A zero of each operand's own type (a bf16 or f16 B pads with its zero).
  SmallVector<Attribute> zeros;
  for (Value operand : op->getOperands())
    zeros.push_back(
        rewriter.getZeroAttr(getElementTypeOrSelf(operand.getType())));
  linalg::PadTilingInterfaceOptions options;
  options.setPaddingValues(zeros)
      .setPaddingSizes(getAsIndexOpFoldResult(rewriter.getContext(), multiples))
      .setPadToMultipleOf(true);
  rewriter.setInsertionPointAfter(op);
  FailureOr<linalg::PadTilingInterfaceResult> padded =
      linalg::rewriteAsPaddedOp(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(padded))
    return op;
  // Operands already of the right size need no copy: those padded by
  // nothing, statically or provably (the dynamic m, whose multiple is 0).
  auto isZero = [](OpFoldResult amount) {
    FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::EQ, ValueBoundsConstraintSet::Variable(amount));
    return succeeded(bound) && *bound == 0;
  };
  rewriter.replaceOp(op, padded->replacements);
  Value init =
      cast<linalg::LinalgOp>(padded->paddedOp.getOperation()).getDpsInits()[0];
  for (tensor::PadOp pad : padded->padOps) {
    if (pad.getSourceType() == pad.getResultType() &&
        llvm::all_of(pad.getMixedLowPad(), isZero) &&
        llvm::all_of(pad.getMixedHighPad(), isZero))
      rewriter.replaceOp(pad, pad.getSource());
    else if (pad.getResult() == init)
      padAccumulatorProducer(rewriter, pad);
  }
  densifyUnrankedCasts(rewriter, padded->replacements);
  for (Value replacement : padded->replacements)
    if (auto slice = replacement.getDefiningOp<tensor::ExtractSliceOp>())
      sinkResultSlice(rewriter, slice);
  return cast<linalg::LinalgOp>(padded->paddedOp.getOperation());
}

/// Whether `op`'s operands all have the result's element type, or only B
/// differs by being widened to f32 as it is read (bf16 or f16 weights): a
/// linalg.contract then states the same computation (its body extends B).
bool haveContractibleElementTypes(linalg::LinalgOp op) {
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (getElementTypeOrSelf(op.getDpsInputs()[0].getType()) != element)
    return false;
  Type rhs = getElementTypeOrSelf(op.getDpsInputs()[1].getType());
  return rhs == element || (element.isF32() && isWidenedToF32(rhs));
}

/// When B is indexed (..., n, k) (transpose_b, linear: w is n x k), its rows
/// of n are strided in memory and the register tile would gather them. Gives
/// the contraction a transposed copy of B, indexed (..., k, n) like a plain
/// matmul's, made by a `linalg.transpose` tagged
/// `transformer.contraction = "transpose"` that the schedule vectorizes. The
/// copy costs one pass over B, about 1/M of the product's work.
/// Returns a transposed copy of B, and updates B's map in `maps`, when B is
/// indexed (..., n, k); a null Value otherwise.
Value transposeRhs(RewriterBase &rewriter, linalg::LinalgOp op,
                   SmallVector<AffineMap> &maps) {
  AffineMap bMap = maps[1];
  unsigned numLoops = op.getNumLoops();
  int64_t rank = bMap.getNumResults();
  MLIRContext *ctx = op.getContext();
  AffineExpr n = getAffineDimExpr(numLoops - 2, ctx);
  AffineExpr k = getAffineDimExpr(numLoops - 1, ctx);
  if (rank < 2 || bMap.getResult(rank - 2) != n ||
      bMap.getResult(rank - 1) != k)
    return {};
  Value b = op.getDpsInputs()[1];
  auto bType = dyn_cast<RankedTensorType>(b.getType());
  if (!bType)
    return {};
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 2], perm[rank - 1]);
  Location loc = op.getLoc();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, b);
  applyPermutationToVector(sizes, perm);
  Value init =
      tensor::EmptyOp::create(rewriter, loc, sizes, bType.getElementType());
  auto transpose = linalg::TransposeOp::create(rewriter, loc, b, init, perm);
  transpose->setAttr(
      kContractionAttrName,
      rewriter.getStringAttr(rank == 2 ? "transpose" : "btranspose"));
  SmallVector<AffineExpr> results(bMap.getResults());
  std::swap(results[rank - 2], results[rank - 1]);
  maps[1] = AffineMap::get(numLoops, 0, results, ctx);
  return transpose->getResult(0);
}

/// The rows of k that one task of packInPanels copies: the largest of
/// `candidates` that divides `k`; 0 when none does.
int64_t getPackRows(int64_t k, ArrayRef<int64_t> candidates) {
  for (int64_t rows : candidates)
    if (k % rows == 0)
      return rows;
  return 0;
}

/// The [sizes] slice of the 2-D `source` at `offsets`, unit strides.
Value slice2D(OpBuilder &b, Location loc, Value source,
              ArrayRef<OpFoldResult> offsets, ArrayRef<int64_t> sizes) {
  Type element = cast<RankedTensorType>(source.getType()).getElementType();
  SmallVector<OpFoldResult> sizeAttrs = {b.getIndexAttr(sizes[0]),
                                         b.getIndexAttr(sizes[1])};
  SmallVector<OpFoldResult> unit(2, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc,
                                        RankedTensorType::get(sizes, element),
                                        source, offsets, sizeAttrs, unit);
}

/// `source` copied into `into` (rows x width of a panel), tagged for the
/// schedule: transposed in lanes x lanes tiles from B indexed (n, k)
/// ("transpose_tile"), or 8 rows per vector step ("panels").
Value copyIntoPanel(OpBuilder &b, Location loc, Value source, Value into,
                    bool transposed) {
  Operation *copy;
  if (transposed) {
    copy = linalg::TransposeOp::create(b, loc, source, into,
                                       ArrayRef<int64_t>{1, 0});
    copy->setAttr(kContractionAttrName, b.getStringAttr("transpose_tile"));
  } else {
    copy = linalg::CopyOp::create(b, loc, source, into);
    copy->setAttr(kContractionAttrName, b.getStringAttr("panels"));
  }
  return copy->getResult(0);
}

/// B of a contraction over (m, n, k) laid out in panels `width` columns wide
/// ([n / width, k, width], the order the register tiles read it), made by an
/// scf.forall whose tasks (shared by the threads) each fill `rows` rows of
/// one panel: B indexed (k, n) with a `linalg.copy` tagged "panels", B
/// indexed (n, k) (`rhsIsNK`) with a `linalg.transpose` tagged
/// "transpose_tile" (lanes x lanes tiles transposed in registers). The loop
/// is a kernel of its own, which writes the panels in place. `zeroColumns`
/// columns of zeros follow B's n (n padded to whole panels): the last panel,
/// partly B's, is copied from B's remaining columns padded with zeros.
Value packInPanels(OpBuilder &b, Location loc, Value rhs, bool rhsIsNK,
                   int64_t width, int64_t rows, int64_t zeroColumns) {
  auto type = cast<RankedTensorType>(rhs.getType());
  int64_t k = type.getDimSize(rhsIsNK ? 1 : 0);
  int64_t n = type.getDimSize(rhsIsNK ? 0 : 1);
  Type element = type.getElementType();
  int64_t panelCount = llvm::divideCeil(n + zeroColumns, width);
  Value init = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{panelCount, k, width}, element);
  // (k, n): k blocks outer, panels inner, so that a thread reads B's rows
  // along their length, a few pages at a time (reading a panel down all of
  // k touches a page per row). (n, k): panels outer, each a width-row band
  // of B read along k.
  SmallVector<OpFoldResult> counts = {b.getIndexAttr(k / rows),
                                      b.getIndexAttr(n / width)};
  if (rhsIsNK)
    std::swap(counts[0], counts[1]);
  auto forall = scf::ForallOp::create(
      b, loc, counts, ValueRange{init}, /*mapping=*/std::nullopt,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value block = args[rhsIsNK ? 1 : 0], panel = args[rhsIsNK ? 0 : 1];
        Value panels = args[2];
        AffineExpr d0 = nb.getAffineDimExpr(0);
        Value row = affine::AffineApplyOp::create(
            nb, l, AffineMap::get(1, 0, d0 * rows), ValueRange{block});
        Value column = affine::AffineApplyOp::create(
            nb, l, AffineMap::get(1, 0, d0 * width), ValueRange{panel});
        Value source = rhsIsNK
                           ? slice2D(nb, l, rhs, {column, row}, {width, rows})
                           : slice2D(nb, l, rhs, {row, column}, {rows, width});
        SmallVector<OpFoldResult> offsets = {panel, row, nb.getIndexAttr(0)};
        SmallVector<OpFoldResult> sizes = {
            nb.getIndexAttr(1), nb.getIndexAttr(rows), nb.getIndexAttr(width)};
        SmallVector<OpFoldResult> strides(3, nb.getIndexAttr(1));
        Value into = tensor::ExtractSliceOp::create(
            nb, l, RankedTensorType::get({rows, width}, element), panels,
            offsets, sizes, strides);
        Value copy = copyIntoPanel(nb, l, source, into, rhsIsNK);
        auto terminator = scf::InParallelOp::create(nb, l);
        nb.setInsertionPointToStart(terminator.getBody());
        tensor::ParallelInsertSliceOp::create(nb, l, copy, panels, offsets,
                                              sizes, strides);
      });
  forall->setAttr(kKernelRootAttrName, b.getUnitAttr());
  Value result = forall.getResult(0);
  int64_t full = n / width, rest = n % width;
  if (rest == 0)
    return result;
  // The last panel: B's remaining columns, padded with zeros to the width.
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  OpFoldResult first = b.getIndexAttr(full * width), origin = b.getIndexAttr(0);
  Value remaining = rhsIsNK ? slice2D(b, loc, rhs, {first, origin}, {rest, k})
                            : slice2D(b, loc, rhs, {origin, first}, {k, rest});
  Value padded = tensor::createPadHighOp(
      RankedTensorType::get(rhsIsNK ? ArrayRef<int64_t>{width, k}
                                    : ArrayRef<int64_t>{k, width},
                            element),
      remaining, zero, /*nofold=*/false, loc, b);
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(full), origin, origin};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(k),
                                     b.getIndexAttr(width)};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  Value into = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({k, width}, element), result, offsets,
      sizes, strides);
  Value copy = copyIntoPanel(b, loc, padded, into, rhsIsNK);
  return tensor::InsertSliceOp::create(b, loc, copy, result, offsets, sizes,
                                       strides);
}

/// Whether B of `op` is read (k, n), false; (n, k), true; std::nullopt when
/// `op` is not a static f32 C[m, n] += A[m, k] * B.
std::optional<bool> getPackableRhsOrder(linalg::LinalgOp op) {
  if (op.getNumLoops() != 3 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics() ||
      !linalg::isaContractionOpInterface(op) || !hasMulAddBody(op) ||
      op.hasDynamicShape())
    return std::nullopt;
  for (Value operand : op->getOperands())
    if (!getElementTypeOrSelf(operand.getType()).isF32())
      return std::nullopt;
  MLIRContext *ctx = op.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[0] != AffineMap::get(3, 0, {m, k}, ctx) ||
      maps[2] != AffineMap::get(3, 0, {m, n}, ctx))
    return std::nullopt;
  if (maps[1] == AffineMap::get(3, 0, {k, n}, ctx))
    return false;
  if (maps[1] == AffineMap::get(3, 0, {n, k}, ctx))
    return true;
  return std::nullopt;
}

/// Bytes between rows of A (a multiple of) at which a cache tile's rows of
/// A collide in the caches: a register tile's 8 rows all fall in one L1 set
/// (64 sets of 64-byte lines: 4 KiB apart or a multiple), with the panel of
/// B it reads, and at 8 KiB the 256 rows of a cache tile's block fall in a
/// sixteenth of the L2's sets. At 4 KiB the copy cost about what it gained
/// (bench/HISTORY.md).
constexpr int64_t kAliasingRowBytes = 8192;

/// A copy of `lhs` ([m, k], static, f32) whose rows are `pad` values
/// further apart: an scf.forall over blocks of 8 rows x `width` columns
/// (rows outer), each a `linalg.copy` tagged "panels", into a [m, k + pad]
/// buffer, of which the result is the [m, k] slice. A's rows a multiple of
/// kAliasingRowBytes apart would otherwise share L1 sets with each other and
/// with the panel of B that the register tiles read.
Value copyWithPaddedRows(OpBuilder &b, Location loc, Value lhs, int64_t pad,
                         int64_t width) {
  auto type = cast<RankedTensorType>(lhs.getType());
  int64_t m = type.getDimSize(0), k = type.getDimSize(1);
  Type element = type.getElementType();
  int64_t rows = getPackRows(m, {8, 4, 2, 1});
  int64_t columns = getPackRows(k, {width, 16, 8, 4, 2, 1});
  Value init =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{m, k + pad}, element);
  auto forall = scf::ForallOp::create(
      b, loc,
      ArrayRef<OpFoldResult>{b.getIndexAttr(m / rows),
                             b.getIndexAttr(k / columns)},
      ValueRange{init}, /*mapping=*/std::nullopt,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        AffineExpr d0 = nb.getAffineDimExpr(0);
        Value row = affine::AffineApplyOp::create(
            nb, l, AffineMap::get(1, 0, d0 * rows), ValueRange{args[0]});
        Value column = affine::AffineApplyOp::create(
            nb, l, AffineMap::get(1, 0, d0 * columns), ValueRange{args[1]});
        SmallVector<OpFoldResult> offsets = {row, column};
        Value source = slice2D(nb, l, lhs, offsets, {rows, columns});
        Value into = slice2D(nb, l, args[2], offsets, {rows, columns});
        Value copy = copyIntoPanel(nb, l, source, into, /*transposed=*/false);
        SmallVector<OpFoldResult> sizes = {nb.getIndexAttr(rows),
                                           nb.getIndexAttr(columns)};
        SmallVector<OpFoldResult> strides(2, nb.getIndexAttr(1));
        auto terminator = scf::InParallelOp::create(nb, l);
        nb.setInsertionPointToStart(terminator.getBody());
        tensor::ParallelInsertSliceOp::create(nb, l, copy, args[2], offsets,
                                              sizes, strides);
      });
  forall->setAttr(kKernelRootAttrName, b.getUnitAttr());
  return tensor::ExtractSliceOp::create(
      b, loc, type, forall.getResult(0),
      ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(m), b.getIndexAttr(k)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
}

/// `op` reading B from a copy in panels made once per call (packInPanels),
/// where its rows span several cache tiles: each cache tile would otherwise
/// copy its block of B, then each register tile's panel of it, once per
/// cache tile along m. Returns the panel contraction, or null where that
/// does not apply (`op` is then the op to prepare as usual: padded along n
/// where that was done already).
linalg::LinalgOp packRhsPerCall(IRRewriter &rewriter, linalg::LinalgOp &op,
                                const CPUTarget &target) {
  RegisterTile registerTile = target.contractionRegisterTile();
  int64_t width = registerTile.n;
  std::optional<bool> rhsIsNK = getPackableRhsOrder(op);
  // A B dequantized from blocks is made whole once per call already
  // (transformer-cpu-fuse-epilogues), in its own vector code; a constant
  // weight, or an argument of a private function that its callers may bind
  // to one (a model's layer function), is copied once by
  // transformer-cpu-cache-constant-weights, not on every call.
  Value b = op.getDpsInputs()[1];
  auto arg = dyn_cast<BlockArgument>(b);
  auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                  : func::FuncOp();
  if (!rhsIsNK ||
      op.getStaticLoopRanges()[0] <= target.contractionCacheTile().m ||
      getDequantizedWeight(b) || isConstantArgument(b) ||
      (func && func.isPrivate()))
    return {};
  // (k, n): 8 rows per task (one vector step of the copy); (n, k): whole
  // lanes x lanes tiles.
  int64_t lanes = target.f32Lanes();
  int64_t k = op.getStaticLoopRanges()[2];
  int64_t rows =
      *rhsIsNK
          ? getPackRows(k, {16 * lanes, 8 * lanes, 4 * lanes, 2 * lanes, lanes})
          : getPackRows(k, {8, 4, 2, 1});
  if (!rows)
    return {};
  // n padded to whole panels (B and C); the panels are then made from B as
  // it is, the last one completed with zeros.
  op = padToRegisterTiles(rewriter, op, /*mLoop=*/0, registerTile);
  if (op.getStaticLoopRanges()[1] % width != 0)
    return {};
  Value rhs = op.getDpsInputs()[1];
  int64_t zeroColumns = 0;
  if (auto pad = rhs.getDefiningOp<tensor::PadOp>()) {
    int64_t nDim = *rhsIsNK ? 0 : 1;
    std::optional<int64_t> high =
        getConstantIntValue(pad.getMixedHighPad()[nDim]);
    Value padding = pad.getConstantPaddingValue();
    if (high && padding && matchPattern(padding, m_AnyZeroFloat()) &&
        llvm::all_of(pad.getMixedLowPad(), isZeroInteger) &&
        isZeroInteger(pad.getMixedHighPad()[1 - nDim])) {
      rhs = pad.getSource();
      zeroColumns = *high;
    }
  }
  rewriter.setInsertionPoint(op);
  Value panels = packInPanels(rewriter, op.getLoc(), rhs, *rhsIsNK, width, rows,
                              zeroColumns);
  Operation *padded = op.getDpsInputs()[1].getDefiningOp();
  FailureOr<linalg::GenericOp> generic =
      readFromPanels(rewriter, op, panels, width);
  if (failed(generic))
    return {};
  if (padded && isa<tensor::PadOp>(padded) && padded->use_empty())
    rewriter.eraseOp(padded);
  // A's rows a multiple of kAliasingRowBytes apart: read from a copy whose
  // rows are one cache line further apart.
  if ((k * 4) % kAliasingRowBytes == 0 &&
      !isConstantArgument(generic->getDpsInputs()[0])) {
    rewriter.setInsertionPoint(*generic);
    Value lhs = copyWithPaddedRows(rewriter, generic->getLoc(),
                                   generic->getDpsInputs()[0],
                                   /*pad=*/16, width);
    rewriter.modifyOpInPlace(*generic,
                             [&] { generic->getDpsInputOperand(0)->set(lhs); });
  }
  return *generic;
}

/// The few-rows form `build` makes of `op`, marked as a kernel of its own
/// for --transformer-outline-kernels (shared by every layer; the register
/// tile path keeps its pads in the caller, which its hoisting needs).
Value buildFewRowsKernel(
    OpBuilder &b, linalg::LinalgOp op,
    function_ref<Value(OpBuilder &, linalg::LinalgOp)> build) {
  Value result = build(b, op);
  result.getDefiningOp()->setAttr(kKernelRootAttrName, b.getUnitAttr());
  return result;
}

/// Whether every value `op` uses (operands, and values from above in its
/// body) other than `except` is defined before `anchor`, or is a
/// `tensor.empty` whose sizes are (moved there by hoistEmpties), so that
/// `op` can be cloned to where `anchor` is.
bool operandsDominate(Operation *op, Value except, Operation *anchor,
                      DominanceInfo &dominance) {
  llvm::SetVector<Value> used(op->operand_begin(), op->operand_end());
  getUsedValuesDefinedAbove(op->getRegions(), used);
  return llvm::all_of(used, [&](Value v) {
    if (v == except || dominance.properlyDominates(v, anchor))
      return true;
    auto empty = v.getDefiningOp<tensor::EmptyOp>();
    return empty && llvm::all_of(empty->getOperands(), [&](Value size) {
             return dominance.properlyDominates(size, anchor);
           });
  });
}

/// Moves the `tensor.empty` operands of `op` that operandsDominate accepted
/// before `anchor`.
void hoistEmpties(RewriterBase &rewriter, Operation *op, Operation *anchor,
                  DominanceInfo &dominance) {
  for (Value v : op->getOperands())
    if (auto empty = v.getDefiningOp<tensor::EmptyOp>();
        empty && !dominance.properlyDominates(v, anchor))
      rewriter.moveOpBefore(empty, anchor);
}

/// The element-wise ops that consume `op`'s result one after the other (bias
/// add, GELU, residual add): each the only user of the previous result, in
/// the same block, of the same type, its other operands defined before `op`.
SmallVector<Operation *> getEpilogueChain(linalg::LinalgOp op,
                                          DominanceInfo &dominance) {
  SmallVector<Operation *> chain;
  Value result = op->getResult(0);
  while (result.hasOneUse()) {
    Operation *user = *result.getUsers().begin();
    if (user->getBlock() != op->getBlock() || !isElementwiseOnTensors(user) ||
        user->getResult(0).getType() != result.getType() ||
        !operandsDominate(user, result, op, dominance))
      break;
    chain.push_back(user);
    result = user->getResult(0);
  }
  return chain;
}

/// Marks the `scf.if` ops that splitOnRowCount makes, for
/// mergeRowCountBranches (removed by it).
constexpr llvm::StringLiteral kRowCountBranchAttrName =
    "transformer.row_count_branch";

/// The A and the row limit that a row-count branch tests (`dim(A, 0) <=
/// limit`, as splitOnRowCount writes it).
std::optional<std::pair<Value, int64_t>> getRowCountTest(scf::IfOp branch) {
  auto compare = branch.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!compare || compare.getPredicate() != arith::CmpIPredicate::ule)
    return std::nullopt;
  auto dim = compare.getLhs().getDefiningOp<tensor::DimOp>();
  std::optional<int64_t> index = dim ? dim.getConstantIndex() : std::nullopt;
  std::optional<int64_t> limit = getConstantIntValue(compare.getRhs());
  if (!index || *index != 0 || !limit)
    return std::nullopt;
  return std::make_pair(dim.getSource(), *limit);
}

/// Merges `prev` into `next`, two row-count branches of the same test in one
/// block, where only `next`'s branches use `prev`'s results: one `scf.if`
/// where `next` was, each branch `prev`'s ops and then `next`'s (`prev`'s
/// results replaced by what its branch yielded), yielding `next`'s results.
void mergeBranches(RewriterBase &rewriter, scf::IfOp prev, scf::IfOp next) {
  rewriter.moveOpBefore(prev, next);
  rewriter.setInsertionPoint(next);
  auto merged = scf::IfOp::create(rewriter, next.getLoc(),
                                  next.getResultTypes(), prev.getCondition(),
                                  /*addThenBlock=*/false,
                                  /*addElseBlock=*/false);
  auto mergeRegion = [&](Region &first, Region &second, Region &into) {
    Block *firstBlock = &first.front(), *secondBlock = &second.front();
    auto firstYield = cast<scf::YieldOp>(firstBlock->getTerminator());
    for (auto [result, yielded] :
         llvm::zip(prev.getResults(), firstYield.getOperands()))
      rewriter.replaceUsesWithIf(result, yielded, [&](OpOperand &use) {
        return second.isAncestor(use.getOwner()->getParentRegion());
      });
    rewriter.eraseOp(firstYield);
    rewriter.inlineBlockBefore(firstBlock, secondBlock, secondBlock->begin());
    into.takeBody(second);
  };
  mergeRegion(prev.getThenRegion(), next.getThenRegion(),
              merged.getThenRegion());
  mergeRegion(prev.getElseRegion(), next.getElseRegion(),
              merged.getElseRegion());
  rewriter.replaceOp(next, merged.getResults());
  rewriter.eraseOp(prev);
}

/// Merges pairs of row-count branches of the same test (the rows of the
/// same A) where only the second's branches use the first's results: in a
/// gated MLP the up projection's epilogue reads the gate projection
/// (silu(gate) * up). In one branch, transformer-outline-kernels puts both
/// contractions in one kernel and transformer-cpu-fuse-epilogues in the
/// same cache tiles, instead of the first writing its result whole to
/// memory for the second's epilogue to read back.
void mergeRowCountBranches(RewriterBase &rewriter, Operation *root) {
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<scf::IfOp> branches;
    root->walk([&](scf::IfOp branch) {
      if (branch->hasAttr(kRowCountBranchAttrName))
        branches.push_back(branch);
    });
    for (scf::IfOp next : branches) {
      std::optional<std::pair<Value, int64_t>> test = getRowCountTest(next);
      if (!test)
        continue;
      scf::IfOp prev;
      next->walk([&](Operation *op) {
        for (Value operand : op->getOperands())
          if (auto branch = operand.getDefiningOp<scf::IfOp>();
              branch && branch != next &&
              branch->getBlock() == next->getBlock() &&
              branch->hasAttr(kRowCountBranchAttrName))
            prev = branch;
      });
      if (!prev || getRowCountTest(prev) != test ||
          !prev->isBeforeInBlock(next) ||
          llvm::any_of(prev->getUsers(), [&](Operation *user) {
            return !next->isAncestor(user);
          }))
        continue;
      mergeBranches(rewriter, prev, next);
      changed = true;
      break;
    }
  }
  root->walk(
      [](scf::IfOp branch) { branch->removeAttr(kRowCountBranchAttrName); });
}

/// For a dynamic number of rows: `scf.if` (rows <= maxRows) the few-rows
/// form `build` makes, else a clone of `op`, which is returned for the usual
/// preparation. The element-wise producer of the accumulator (a fill, the
/// bias broadcast) and the chain of element-wise consumers (getEpilogueChain)
/// are cloned into both branches: in the tiled one, fuse-epilogues then
/// fuses them into the cache tiles rather than leaving a pass over memory
/// after the `scf.if`.
linalg::LinalgOp
splitOnRowCount(RewriterBase &rewriter, linalg::LinalgOp op, int64_t maxRows,
                function_ref<Value(OpBuilder &, linalg::LinalgOp)> build) {
  Location loc = op.getLoc();
  DominanceInfo dominance(op->getParentOp());
  SmallVector<Operation *> epilogue = getEpilogueChain(op, dominance);
  Operation *initProducer = op.getDpsInits()[0].getDefiningOp();
  if (!initProducer || !isElementwiseOnTensors(initProducer) ||
      !operandsDominate(initProducer, Value(), op, dominance))
    initProducer = nullptr;
  Operation *last = epilogue.empty() ? op.getOperation() : epilogue.back();
  for (Operation *consumer : epilogue)
    hoistEmpties(rewriter, consumer, op, dominance);

  rewriter.setInsertionPoint(op);
  Value rows = tensor::DimOp::create(rewriter, loc, op.getDpsInputs()[0], 0);
  Value limit = arith::ConstantIndexOp::create(rewriter, loc, maxRows);
  Value few = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ule,
                                    rows, limit);
  auto branch = scf::IfOp::create(rewriter, loc, last->getResultTypes(), few,
                                  /*addThenBlock=*/true, /*addElseBlock=*/true);
  branch->setAttr(kRowCountBranchAttrName, rewriter.getUnitAttr());

  // Builds one branch: the accumulator's producer, the contraction
  // (`makeContraction` of the op with its init remapped) and the epilogue.
  auto buildBranch =
      [&](Block *block, function_ref<Value(linalg::LinalgOp)> makeContraction) {
        rewriter.setInsertionPointToStart(block);
        IRMapping mapping;
        if (initProducer)
          rewriter.clone(*initProducer, mapping);
        auto contraction = cast<linalg::LinalgOp>(rewriter.clone(*op, mapping));
        Value result = makeContraction(contraction);
        mapping.map(op->getResult(0), result);
        for (Operation *consumer : epilogue)
          rewriter.clone(*consumer, mapping);
        scf::YieldOp::create(rewriter, loc, mapping.lookup(last->getResult(0)));
      };
  linalg::LinalgOp tiled;
  buildBranch(branch.thenBlock(), [&](linalg::LinalgOp contraction) {
    rewriter.setInsertionPoint(contraction);
    Value result = buildFewRowsKernel(rewriter, contraction, build);
    rewriter.eraseOp(contraction);
    return result;
  });
  // The few-rows kernel overwrites its whole result. The sizes it reads
  // from the accumulator's producer cloned into its branch are read from
  // that producer's init instead, which leaves the producer to the kernel
  // alone (or to nothing: then it is erased). Read from the producer, the
  // sizes kept it alive outside the outlined kernel: a zero fill of the
  // whole result, a kernel of its own, on every call of a decode step's
  // projection.
  if (initProducer) {
    Operation *clonedProducer = &branch.thenBlock()->front();
    replaceDimsOfResults(rewriter, clonedProducer);
    if (clonedProducer->use_empty())
      rewriter.eraseOp(clonedProducer);
  }
  buildBranch(branch.elseBlock(), [&](linalg::LinalgOp contraction) {
    tiled = contraction;
    return contraction->getResult(0);
  });
  rewriter.replaceAllUsesWith(last->getResult(0), branch.getResult(0));
  for (Operation *consumer : llvm::reverse(epilogue))
    rewriter.eraseOp(consumer);
  rewriter.eraseOp(op);
  if (initProducer && initProducer->use_empty())
    rewriter.eraseOp(initProducer);
  return tiled;
}

/// Gives `op` the few-rows form `build` makes when it has at most `maxRows`
/// rows: the whole op for a static count (returns null), or the branch of a
/// dynamic one (returns the clone of `op` for the other rows, to prepare as
/// usual). Returns `op` itself for more static rows.
linalg::LinalgOp
buildFewRowsForm(RewriterBase &rewriter, linalg::LinalgOp op, int64_t maxRows,
                 function_ref<Value(OpBuilder &, linalg::LinalgOp)> build) {
  int64_t rows = op.getStaticLoopRanges()[0];
  if (!ShapedType::isDynamic(rows) && rows <= maxRows) {
    rewriter.setInsertionPoint(op);
    rewriter.replaceOp(op, buildFewRowsKernel(rewriter, op, build));
    return {};
  }
  if (ShapedType::isDynamic(rows))
    return splitOnRowCount(rewriter, op, maxRows, build);
  return op;
}

/// A contraction that reads B in panels (isF32PanelContraction): few rows
/// take the row form, which reads the panels as they are; the rest are
/// tagged "mnk" for the schedule, whose cache tiles read them in place
/// (--transformer-cpu-panel-contractions). n is a multiple of the panel
/// width, so there is nothing to pad.
void preparePanelContraction(RewriterBase &rewriter, linalg::LinalgOp op) {
  if (isRowForm(op))
    op = buildFewRowsForm(rewriter, op, getRowFormMaxRows(op), buildRowKernel);
  if (op)
    op->setAttr(kContractionAttrName, rewriter.getStringAttr("mnk"));
}

/// Whether `op` is a contraction this pass tagged for the schedule.
bool isTaggedContraction(Operation *op) {
  return op && isa<linalg::LinalgOp>(op) && op->hasAttr(kContractionAttrName);
}

/// Whether folding the reshape next to `operand` into its element-wise
/// generic makes that generic a neighbour of a tagged contraction: the
/// generic's result collapsed into a contraction's operand (a bias
/// broadcast into the accumulator of a contraction whose leading loops
/// were collapsed into one m), or its input the expanded result of one
/// (a GELU or a residual add after it). Folded, the epilogue fusion sees
/// them as the contraction's producer and consumers.
bool foldsReshapeNextToContraction(OpOperand *operand) {
  auto feedsContraction = [](tensor::CollapseShapeOp collapse) {
    return llvm::any_of(collapse->getUsers(), isTaggedContraction);
  };
  // A collapse_shape of a generic's result: the pattern offers the
  // collapse's source operand.
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(operand->getOwner()))
    return isElementwiseOnTensors(operand->get().getDefiningOp()) &&
           feedsContraction(collapse);
  auto generic = dyn_cast<linalg::GenericOp>(operand->getOwner());
  if (!generic || !isElementwiseOnTensors(generic))
    return false;
  // A result the function returns keeps its shape, and its op stays out of
  // the contraction's tiles: fused, the contraction would accumulate in the
  // call's fresh result buffer (a GPT-2 block at 128 tokens, whose result
  // fits the L2 and gets no tile temporary, was 2-4% slower on two
  // threads); unfused, the op writes it once.
  if (llvm::any_of(generic->getUsers(), [](Operation *user) {
        return user->hasTrait<OpTrait::IsTerminator>();
      }))
    return false;
  auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
  return expand && isTaggedContraction(expand.getSrc().getDefiningOp());
}

/// collapse_shape(expand_shape(x)) back to x (the op's folder, as a pattern:
/// the pass's rewrite runs without folding).
struct CancelCollapseOfExpand : OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::CollapseShapeOp collapse,
                                PatternRewriter &rewriter) const override {
    auto expand = collapse.getSrc().getDefiningOp<tensor::ExpandShapeOp>();
    if (!expand || expand.getSrc().getType() != collapse.getType() ||
        expand.getReassociationIndices() != collapse.getReassociationIndices())
      return failure();
    rewriter.replaceOp(collapse, expand.getSrc());
    return success();
  }
};

/// Moves the reshapes that collapseOpIterationDims put around a contraction
/// across its element-wise producers and consumers (the other side's
/// reshapes then cancel), so that a linear on [1, s, d] fuses its bias and
/// epilogue as one on [s, d] does.
void foldReshapesAroundContractions(Operation *root) {
  MLIRContext *ctx = root->getContext();
  RewritePatternSet patterns(ctx);
  linalg::populateFoldReshapeOpsByCollapsingPatterns(
      patterns, foldsReshapeNextToContraction);
  patterns.add<CancelCollapseOfExpand>(ctx);
  tensor::populateFoldTensorEmptyPatterns(patterns);
  // Only these rewrites: folding and constant CSE would move the constants
  // of the few-rows kernels out of their branches.
  GreedyRewriteConfig config;
  config.enableFolding(false)
      .enableConstantCSE(false)
      .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  (void)applyPatternsGreedily(root, std::move(patterns), config);
}

struct PrepareContractionsPass
    : public transformer::impl::TransformerCPUPrepareContractionsPassBase<
          PrepareContractionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && op.getNumDpsInits() == 1 &&
          (linalg::isaContractionOpInterface(op) || isF32PanelContraction(op)))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    CPUTarget target = CPUTarget::forOp(getOperation());
    RegisterTile registerTile = target.contractionRegisterTile();
    for (linalg::LinalgOp op : candidates) {
      if (isF32PanelContraction(op)) {
        preparePanelContraction(rewriter, op);
        continue;
      }
      if (linalg::LinalgOp panel = packRhsPerCall(rewriter, op, target)) {
        preparePanelContraction(rewriter, panel);
        continue;
      }
      std::optional<SmallVector<ReassociationIndices>> groups =
          getCanonicalLoopGroups(op);
      if (!groups)
        continue;
      if (groups->size() < op.getNumLoops()) {
        // A group of several dynamic loops would collapse into a reshape
        // that --expand-strided-metadata of MLIR 22 crashes on (an
        // expand_shape group with more than one dynamic size); such ops
        // keep the simple lowering.
        SmallVector<int64_t> ranges = op.getStaticLoopRanges();
        if (llvm::any_of(*groups, [&](const ReassociationIndices &group) {
              return llvm::count_if(group, [&](int64_t dim) {
                       return ShapedType::isDynamic(ranges[dim]);
                     }) > 1;
            }))
          continue;
        // Several loops per role: one loop each, with reshaped operands. That
        // needs every operand to see each group's loops together and in
        // order ((no, k, ni) for a packed B does not): others keep the
        // simple lowering.
        if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(),
                                              *groups))
          continue;
        rewriter.setInsertionPoint(op);
        FailureOr<linalg::CollapseResult> collapsed =
            linalg::collapseOpIterationDims(op, *groups, rewriter);
        if (failed(collapsed))
          continue;
        rewriter.replaceOp(op, collapsed->results);
        op = collapsed->collapsedOp;
      }
      // Few rows and B indexed (n, k): the dot-product form. With a dynamic
      // number of rows, the choice is made at run time.
      // Few rows: the dot-product form (B indexed (n, k)) or the row form
      // (B indexed (k, n)). With a dynamic number of rows, the choice is made
      // at run time.
      function_ref<Value(OpBuilder &, linalg::LinalgOp)> fewRows = nullptr;
      int64_t maxRows = 0;
      // A dequantized B: the dot form reads its blocks; the tiled form
      // reads an f32 copy made right before it.
      std::optional<DequantizedWeight> quantized =
          getDequantizedWeight(op.getDpsInputs()[1]);
      auto dotKernel = [&](OpBuilder &b, linalg::LinalgOp contraction) {
        return buildDotKernel(b, contraction, quantized);
      };
      if (isDotForm(op)) {
        fewRows = dotKernel;
        maxRows = kDotMaxRows;
      } else if (isRowForm(op)) {
        fewRows = buildRowKernel;
        maxRows = getRowFormMaxRows(op);
      }
      if (fewRows) {
        op = buildFewRowsForm(rewriter, op, maxRows, fewRows);
        if (!op)
          continue;
      }
      if (quantized)
        op = dequantizeBeforeContraction(rewriter, op, *quantized);
      // The vectorizer makes vector.contract (which lowers to FMAs) only from
      // named contractions; a generic gives mulf + addf. B indexed (n, k) is
      // read through a transposed copy (see transposeRhs).
      if (haveContractibleElementTypes(op)) {
        rewriter.setInsertionPoint(op);
        SmallVector<AffineMap> maps = op.getIndexingMapsArray();
        SmallVector<Value> inputs = op.getDpsInputs();
        if (Value transposed = transposeRhs(rewriter, op, maps))
          inputs[1] = transposed;
        if (isa<linalg::GenericOp>(op.getOperation()) ||
            inputs[1] != op.getDpsInputs()[1]) {
          auto contract = linalg::ContractOp::create(
              rewriter, op.getLoc(), op->getResultTypes(), inputs,
              op.getDpsInits(), rewriter.getAffineMapArrayAttr(maps));
          rewriter.replaceOp(op, contract->getResults());
          op = contract;
        }
      }
      op = padToRegisterTiles(rewriter, op, op.getNumLoops() == 3 ? 0 : 1,
                              registerTile);
      if (quantized)
        foldPaddedDequantization(rewriter, op);
      op->setAttr(
          kContractionAttrName,
          rewriter.getStringAttr(op.getNumLoops() == 3 ? "mnk" : "bmnk"));
    }
    eraseDeadDequantizations(rewriter, getOperation());
    mergeRowCountBranches(rewriter, getOperation());
    foldReshapesAroundContractions(getOperation());
  }
};

} // namespace
