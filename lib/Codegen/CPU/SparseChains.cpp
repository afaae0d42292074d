//===- SparseChains.cpp - Block-sparse masked_softmax and P @ V -----------===//
//
// --transformer-cpu-sparse-chains: lowers the ops of an unfused attention
// chain that carry a `transformer.mask_blocks` table (from
// --transformer-mask-sparsity) block by block, so that the fully masked
// blocks cost nothing:
//
// - `masked_softmax`: per block of 64 rows, the max, exp and sum run over the
//   runs of `V` and `P` key blocks only (the mask is added in `P` runs only);
//   `M` blocks are left as the zeros of the result; a block of rows that is
//   `M` everywhere is fully masked and stays zero, as the op's contract says.
// - `matmul` whose lhs carries the table (masked probabilities @ values):
//   per block of 64 rows, one contraction per run of non-`M` key blocks (one
//   for a causal or window band), on slices of lhs and rhs; no loads and no
//   FLOPs for `M` blocks.
//
// Everything else (the element-wise ops that carry the table too) is left to
// the generic lowering. The row blocks are unrolled at compile time, so every
// slice has a static shape that the row vectorizer and the contraction
// schedule handle as usual.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/FlashAttention.h"
#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/IR/TransformerOps.h"

#include "LoweringUtils.h"

#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERCPUSPARSECHAINSPASS
#include "Transformer/Codegen/CPU/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::lowering;

namespace {

/// A range of key columns [begin, end) of one block of rows, made of blocks
/// of one class (`partial`: P blocks, else V blocks; for the matmul, any
/// blocks that are not M).
struct Run {
  int64_t begin, end;
  bool partial;
};

/// The runs of non-M key blocks of row block `qb`. With `byClass`, V and P
/// blocks form separate runs.
SmallVector<Run> runsOf(const MaskBlocks &blocks, int64_t qb, int64_t sk,
                        bool byClass) {
  SmallVector<Run> runs;
  const std::string &row = blocks.rows[qb];
  for (int64_t kb = 0; kb < static_cast<int64_t>(row.size()); ++kb) {
    char c = row[kb];
    if (c == 'M')
      continue;
    int64_t begin = kb * blocks.blockK;
    int64_t end = std::min(sk, begin + blocks.blockK);
    bool partial = c == 'P';
    if (!runs.empty() && runs.back().end == begin &&
        (!byClass || runs.back().partial == partial)) {
      runs.back().end = end;
      runs.back().partial |= partial;
      continue;
    }
    runs.push_back({begin, end, partial});
  }
  return runs;
}

/// Offsets, sizes and unit strides of the slice [rows) x [cols) of the last
/// two dims of a tensor whose leading sizes are `lead`.
struct Slice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};

Slice sliceOf(OpBuilder &b, ArrayRef<OpFoldResult> lead, int64_t r0, int64_t rn,
              int64_t c0, int64_t cn) {
  Slice s;
  for (OpFoldResult size : lead) {
    s.offsets.push_back(b.getIndexAttr(0));
    s.sizes.push_back(size);
  }
  s.offsets.append({b.getIndexAttr(r0), b.getIndexAttr(c0)});
  s.sizes.append({b.getIndexAttr(rn), b.getIndexAttr(cn)});
  s.strides.assign(s.sizes.size(), b.getIndexAttr(1));
  return s;
}

Value extract(OpBuilder &b, Location loc, Value source, const Slice &s) {
  return tensor::ExtractSliceOp::create(b, loc, source, s.offsets, s.sizes,
                                        s.strides);
}

Value insert(OpBuilder &b, Location loc, Value source, Value dest,
             const Slice &s) {
  return tensor::InsertSliceOp::create(b, loc, source, dest, s.offsets, s.sizes,
                                       s.strides);
}

/// The leading (batch) sizes of `value`, all dims but the last two.
SmallVector<OpFoldResult> leadingSizes(OpBuilder &b, Location loc,
                                       Value value) {
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i + 2 < rank; ++i)
    sizes.push_back(dimSize(b, loc, value, i));
  return sizes;
}

/// Whether `table` has one row per block of `sq` rows and one entry per block
/// of `sk` columns.
bool fitsShape(const MaskBlocks &table, int64_t sq, int64_t sk) {
  auto blocksOf = [](int64_t n, int64_t block) {
    return (n + block - 1) / block;
  };
  return static_cast<int64_t>(table.rows.size()) ==
             blocksOf(sq, table.blockQ) &&
         static_cast<int64_t>(table.rows[0].size()) ==
             blocksOf(sk, table.blockK);
}

/// The static (Sq, Sk) of a ranked f32 tensor of rank >= 2, if static.
std::optional<std::pair<int64_t, int64_t>> trailingShape(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || t.getRank() < 2 || !t.getElementType().isF32())
    return std::nullopt;
  int64_t sq = t.getDimSize(t.getRank() - 2),
          sk = t.getDimSize(t.getRank() - 1);
  if (ShapedType::isDynamic(sq) || ShapedType::isDynamic(sk))
    return std::nullopt;
  return std::make_pair(sq, sk);
}

/// softmax(x + mask) over the last dim, computing only the non-M blocks.
Value lowerMaskedSoftmax(IRRewriter &b, MaskedSoftmaxOp op,
                         const MaskBlocks &table) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  Value x = op.getInput(), mask = op.getMask();
  auto [sq, sk] = *trailingShape(x.getType());
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  float negInf = -std::numeric_limits<float>::infinity();

  SmallVector<OpFoldResult> lead = leadingSizes(b, loc, x);
  SmallVector<OpFoldResult> sizes(lead);
  sizes.append({b.getIndexAttr(sq), b.getIndexAttr(sk)});
  // The mask's leading dims broadcast to the input's (checked at run time
  // where dynamic, as in the generic lowering).
  assertBroadcastable(b, loc, mask, sizes, "transformer.masked_softmax: mask");
  SmallVector<OpFoldResult> maskLead = leadingSizes(b, loc, mask);
  Value out = filledTensor(b, loc, sizes, 0.0f);

  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap rows = rowMap(ctx, rank);
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  SmallVector<utils::IteratorType> reduceLast(parallel);
  reduceLast.back() = utils::IteratorType::reduction;
  Value negInfValue =
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(negInf));
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));

  for (int64_t qb = 0; qb < static_cast<int64_t>(table.rows.size()); ++qb) {
    SmallVector<Run> runs = runsOf(table, qb, sk, /*byClass=*/true);
    if (runs.empty())
      continue; // fully masked rows: zeros
    int64_t r0 = qb * table.blockQ;
    int64_t rn = std::min(sq - r0, table.blockQ);

    // The scores of each run: x, plus the mask in P runs.
    struct Part {
      Slice slice;
      SmallVector<MappedInput> scores;
    };
    SmallVector<Part> parts;
    for (const Run &run : runs) {
      Part part{sliceOf(b, lead, r0, rn, run.begin, run.end - run.begin), {}};
      part.scores.push_back({extract(b, loc, x, part.slice), identity});
      if (run.partial) {
        Slice m = sliceOf(b, maskLead, r0, rn, run.begin, run.end - run.begin);
        Value maskSlice = extract(b, loc, mask, m);
        part.scores.push_back(
            {maskSlice,
             broadcastMap(ctx, cast<RankedTensorType>(maskSlice.getType()),
                          part.slice.sizes)});
      }
      parts.push_back(std::move(part));
    }
    auto score = [](OpBuilder &b, Location loc, ValueRange in) -> Value {
      if (in.size() == 1)
        return in[0];
      return arith::AddFOp::create(b, loc, in[0], in[1]);
    };

    SmallVector<OpFoldResult> rowSizes(lead);
    rowSizes.push_back(b.getIndexAttr(rn));
    Value max = filledTensor(b, loc, rowSizes, negInf);
    for (const Part &part : parts)
      max = buildGeneric(
          b, loc, max, part.scores, rows, reduceLast,
          [&](OpBuilder &b, Location loc, ValueRange in, Value acc) -> Value {
            return arith::MaximumFOp::create(b, loc, score(b, loc, in), acc);
          });

    Value sum = filledTensor(b, loc, rowSizes, 0.0f);
    SmallVector<Value> exps;
    for (const Part &part : parts) {
      SmallVector<MappedInput> in(part.scores);
      in.push_back({max, rows});
      Value e = buildGeneric(
          b, loc, emptyTensor(b, loc, part.slice.sizes), in, identity, parallel,
          [&](OpBuilder &b, Location loc, ValueRange in, Value) -> Value {
            Value m = in.back();
            Value diff =
                arith::SubFOp::create(b, loc, score(b, loc, in.drop_back()), m);
            Value exp = math::ExpOp::create(b, loc, diff);
            // A row whose every score is -inf: zeros, not NaN.
            Value empty = arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::OEQ, m, negInfValue);
            return arith::SelectOp::create(b, loc, empty, zero, exp);
          });
      exps.push_back(e);
      sum = buildGeneric(
          b, loc, sum, {{e, identity}}, rows, reduceLast,
          [](OpBuilder &b, Location loc, ValueRange in, Value acc) -> Value {
            return arith::AddFOp::create(b, loc, in[0], acc);
          });
    }

    for (auto [part, e] : llvm::zip(parts, exps)) {
      Value dest = extract(b, loc, out, part.slice);
      Value probs = buildGeneric(
          b, loc, dest, {{e, identity}, {sum, rows}}, identity, parallel,
          [&](OpBuilder &b, Location loc, ValueRange in, Value) -> Value {
            Value quotient = arith::DivFOp::create(b, loc, in[0], in[1]);
            Value empty = arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::OEQ, in[1], zero);
            return arith::SelectOp::create(b, loc, empty, zero, quotient);
          });
      out = insert(b, loc, probs, out, part.slice);
    }
  }
  return castToType(b, loc, out, cast<RankedTensorType>(op.getType()),
                    "masked_softmax");
}

/// lhs @ rhs where lhs has the zero blocks of `table`: per block of rows,
/// one contraction per run of non-M key blocks.
Value lowerMatmul(IRRewriter &b, MatmulOp op, const MaskBlocks &table) {
  Location loc = op.getLoc();
  Value lhs = op.getLhs(), rhs = op.getRhs();
  auto [sq, sk] = *trailingShape(lhs.getType());
  int64_t rank = cast<RankedTensorType>(lhs.getType()).getRank();
  int64_t rhsRank = cast<RankedTensorType>(rhs.getType()).getRank();
  bool transposeB = op.getTransposeB();
  int64_t kDim = transposeB ? rhsRank - 1 : rhsRank - 2;
  int64_t nDim = transposeB ? rhsRank - 2 : rhsRank - 1;
  // The run-time checks of the generic lowering (MatmulLowering).
  assertEqualSizes(b, loc, b.getIndexAttr(sk), dimSize(b, loc, rhs, kDim),
                   "transformer.matmul: the inner dimensions of lhs and rhs "
                   "differ",
                   "lhs K", "rhs K");
  if (rhsRank == rank)
    for (int64_t i = 0; i + 2 < rank; ++i)
      assertEqualSizes(b, loc, dimSize(b, loc, lhs, i), dimSize(b, loc, rhs, i),
                       "transformer.matmul: batch dimension " + Twine(i) +
                           " of lhs and rhs differ",
                       "lhs", "rhs");

  SmallVector<OpFoldResult> lead = leadingSizes(b, loc, lhs);
  SmallVector<OpFoldResult> rhsLead = leadingSizes(b, loc, rhs);
  OpFoldResult n = dimSize(b, loc, rhs, nDim);
  SmallVector<OpFoldResult> sizes(lead);
  sizes.append({b.getIndexAttr(sq), n});
  Value out = filledTensor(b, loc, sizes, 0.0f);

  for (int64_t qb = 0; qb < static_cast<int64_t>(table.rows.size()); ++qb) {
    SmallVector<Run> runs = runsOf(table, qb, sk, /*byClass=*/false);
    if (runs.empty())
      continue; // zero rows of lhs: zero rows of the product
    int64_t r0 = qb * table.blockQ;
    int64_t rn = std::min(sq - r0, table.blockQ);
    // The block of rows of the result, [lead..., rn, N].
    Slice rowsOut = sliceOf(b, lead, r0, rn, 0, 0);
    rowsOut.sizes.back() = n;
    Value acc = extract(b, loc, out, rowsOut);
    for (const Run &run : runs) {
      int64_t cn = run.end - run.begin;
      Value lhsSlice =
          extract(b, loc, lhs, sliceOf(b, lead, r0, rn, run.begin, cn));
      Slice rhsRows = sliceOf(b, rhsLead, run.begin, cn, 0, 0);
      rhsRows.sizes.back() = n;
      if (transposeB) {
        std::swap(rhsRows.offsets[rhsRank - 2], rhsRows.offsets[rhsRank - 1]);
        std::swap(rhsRows.sizes[rhsRank - 2], rhsRows.sizes[rhsRank - 1]);
      }
      Value rhsSlice = extract(b, loc, rhs, rhsRows);
      acc = buildContraction(b, loc, lhsSlice, rhsSlice, transposeB,
                             [&](ArrayRef<OpFoldResult>) { return acc; });
    }
    out = insert(b, loc, acc, out, rowsOut);
  }
  return castToType(b, loc, out, cast<RankedTensorType>(op.getType()),
                    "matmul");
}

struct SparseChainsPass
    : transformer::impl::TransformerCPUSparseChainsPassBase<SparseChainsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<Operation *, MaskBlocks>> work;
    WalkResult result = getOperation()->walk([&](Operation *op) {
      if (!isa<MaskedSoftmaxOp, MatmulOp>(op))
        return WalkResult::advance();
      Attribute attr = op->getAttr(kMaskBlocksAttrName);
      if (!attr)
        return WalkResult::advance();
      std::optional<MaskBlocks> table = MaskBlocks::fromAttr(attr);
      if (!table) {
        op->emitError() << kMaskBlocksAttrName
                        << " must be {block = array<i64: BQ, BK>, rows = "
                           "[\"...\"]} with rows of equal length made of M, "
                           "V and P";
        return WalkResult::interrupt();
      }
      // The operand that has the zero blocks: the input or the lhs.
      Value blocked = op->getOperand(0);
      auto shape = trailingShape(blocked.getType());
      auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (!shape || !resultType) {
        op->emitError() << kMaskBlocksAttrName << " needs a ranked f32 "
                        << (isa<MatmulOp>(op) ? "lhs" : "input")
                        << " whose last two dimensions are static";
        return WalkResult::interrupt();
      }
      if (!fitsShape(*table, shape->first, shape->second)) {
        op->emitError() << kMaskBlocksAttrName << " has " << table->rows.size()
                        << " x " << table->rows[0].size() << " blocks of "
                        << table->blockQ << " x " << table->blockK
                        << ", which do not tile " << shape->first << " x "
                        << shape->second;
        return WalkResult::interrupt();
      }
      if (auto softmax = dyn_cast<MaskedSoftmaxOp>(op)) {
        auto maskType = dyn_cast<RankedTensorType>(softmax.getMask().getType());
        auto maskShape = trailingShape(maskType);
        if (!maskShape || *maskShape != *shape ||
            maskType.getRank() >
                cast<RankedTensorType>(blocked.getType()).getRank()) {
          op->emitError() << kMaskBlocksAttrName
                          << " needs a mask whose last two dimensions are "
                             "those of the input";
          return WalkResult::interrupt();
        }
      } else if (!isa<RankedTensorType>(op->getOperand(1).getType())) {
        op->emitError() << kMaskBlocksAttrName << " needs a ranked rhs";
        return WalkResult::interrupt();
      }
      work.push_back({op, std::move(*table)});
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();

    IRRewriter rewriter(&getContext());
    for (auto &[op, table] : work) {
      rewriter.setInsertionPoint(op);
      Value lowered =
          isa<MatmulOp>(op)
              ? lowerMatmul(rewriter, cast<MatmulOp>(op), table)
              : lowerMaskedSoftmax(rewriter, cast<MaskedSoftmaxOp>(op), table);
      rewriter.replaceOp(op, lowered);
    }
  }
};

} // namespace
