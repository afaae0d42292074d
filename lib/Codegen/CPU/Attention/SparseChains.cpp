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

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <array>

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

/// A range of key columns of one block of rows, [begin, begin + size):
/// constants for an unrolled block of rows, values in the loop over blocks
/// of rows. `partial`: the mask is added.
struct Segment {
  OpFoldResult begin, size;
  bool partial;
};

SmallVector<Segment> segmentsOf(OpBuilder &b, ArrayRef<Run> runs) {
  SmallVector<Segment> segments;
  for (const Run &run : runs)
    segments.push_back({b.getIndexAttr(run.begin),
                        b.getIndexAttr(run.end - run.begin), run.partial});
  return segments;
}

/// A table whose rows each have their non-M blocks in one contiguous run
/// (causal, window, aligned block-diagonal masks), as key ranges in elements
/// per row block: [lo, vlo) masked, [vlo, vhi) the longest run of V blocks
/// (no mask), [vhi, hi) masked. Rows without a non-M block have lo = hi.
struct Band {
  SmallVector<std::array<int64_t, 4>> ranges; // lo, vlo, vhi, hi
};

std::optional<Band> bandOf(const MaskBlocks &table, int64_t sk) {
  Band band;
  for (int64_t qb = 0; qb < static_cast<int64_t>(table.rows.size()); ++qb) {
    SmallVector<Run> runs = runsOf(table, qb, sk, /*byClass=*/false);
    if (runs.size() > 1)
      return std::nullopt;
    if (runs.empty()) {
      band.ranges.push_back({0, 0, 0, 0});
      continue;
    }
    int64_t lo = runs[0].begin, hi = runs[0].end, vlo = lo, vhi = lo;
    for (const Run &v : runsOf(table, qb, sk, /*byClass=*/true))
      if (!v.partial && v.end - v.begin > vhi - vlo) {
        vlo = v.begin;
        vhi = v.end;
      }
    band.ranges.push_back({lo, vlo, vhi, hi});
  }
  return band;
}

/// Offsets, sizes and unit strides of the slice [r0, r0 + rn) x [c0, c0 + cn)
/// of the last two dims of a tensor whose leading sizes are `lead`.
struct Slice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};

Slice sliceOf(OpBuilder &b, ArrayRef<OpFoldResult> lead, OpFoldResult r0,
              OpFoldResult rn, OpFoldResult c0, OpFoldResult cn) {
  Slice s;
  for (OpFoldResult size : lead) {
    s.offsets.push_back(b.getIndexAttr(0));
    s.sizes.push_back(size);
  }
  s.offsets.append({r0, c0});
  s.sizes.append({rn, cn});
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

/// Builds the blocks of rows of `out`: `emit(b, out, outRow0, r0, rn,
/// segments)` computes the rows [r0, r0 + rn) from the key ranges
/// `segments` and writes them into `out` from its row `outRow0`. A band
/// table's full blocks of rows go through one scf.forall over the blocks
/// (independent: the threads share them out; the parallel loops of the
/// ops inside are nested, which the OpenMP runtime runs on one thread) that
/// reads the ranges from a constant table, so the code
/// size does not grow with the sequence: with `split`, a block's ranges are
/// its masked / visible / masked parts, else one range [lo, hi). The other
/// blocks of rows (the last, partial one; every block of a table that is not
/// a band) are unrolled, with one static range per run of non-M blocks (runs
/// of one class each with `split`).
using RowBlockEmitter = function_ref<Value(
    OpBuilder &, Location, Value out, OpFoldResult outRow0, OpFoldResult r0,
    OpFoldResult rn, ArrayRef<Segment> segments)>;

Value emitRowBlocks(OpBuilder &b, Location loc, Value out,
                    const MaskBlocks &table, int64_t sq, int64_t sk, bool split,
                    RowBlockEmitter emit) {
  int64_t blocks = static_cast<int64_t>(table.rows.size());
  int64_t looped = 0;
  std::optional<Band> band = bandOf(table, sk);
  if (band && sq / table.blockQ >= 2) {
    looped = sq / table.blockQ;
    // Iteration i takes the block of rows order[i] (first, last, second,
    // second last, ...): a causal band's blocks grow in cost, and contiguous
    // chunks of this order are balanced. Each entry: the block's first row,
    // then its ranges.
    SmallVector<int64_t> flat;
    for (int64_t i = 0; i < looped; ++i) {
      int64_t qb = i % 2 == 0 ? i / 2 : looped - 1 - i / 2;
      flat.push_back(qb * table.blockQ);
      flat.append(band->ranges[qb].begin(), band->ranges[qb].end());
    }
    auto type = RankedTensorType::get({looped, 5}, b.getI64Type());
    Value ranges = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, ArrayRef<int64_t>(flat)));
    int64_t rank = cast<RankedTensorType>(out.getType()).getRank();
    SmallVector<OpFoldResult> lead = leadingSizes(b, loc, out);
    OpFoldResult width = dimSize(b, loc, out, rank - 1);

    auto forall = scf::ForallOp::create(
        b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(looped)}, ValueRange{out},
        std::nullopt);
    Value i = forall.getInductionVar(0);
    Value shared = forall.getRegionIterArgs()[0];
    OpBuilder nb = OpBuilder::atBlockTerminator(forall.getBody());
    SmallVector<Value> at;
    for (int64_t j = 0; j < 5; ++j) {
      Value v = tensor::ExtractOp::create(
          nb, loc, ranges,
          ValueRange{i, arith::ConstantIndexOp::create(nb, loc, j)});
      at.push_back(arith::IndexCastOp::create(nb, loc, nb.getIndexType(), v));
    }
    Value r0 = at.front();
    at.erase(at.begin());
    auto sub = [&](Value x, Value y) -> OpFoldResult {
      return arith::SubIOp::create(nb, loc, x, y).getResult();
    };
    SmallVector<Segment> segments;
    if (split)
      segments = {{at[0], sub(at[1], at[0]), true},
                  {at[1], sub(at[2], at[1]), false},
                  {at[2], sub(at[3], at[2]), true}};
    else
      segments = {{at[0], sub(at[3], at[0]), true}};
    // This block's rows of the result, written by this iteration only.
    Slice rows = sliceOf(nb, lead, r0, nb.getIndexAttr(table.blockQ),
                         nb.getIndexAttr(0), width);
    Value result =
        emit(nb, loc, extract(nb, loc, shared, rows), nb.getIndexAttr(0), r0,
             nb.getIndexAttr(table.blockQ), segments);
    nb.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(nb, loc, result, shared, rows.offsets,
                                          rows.sizes, rows.strides);
    out = forall.getResult(0);
  }
  for (int64_t qb = looped; qb < blocks; ++qb) {
    SmallVector<Run> runs = runsOf(table, qb, sk, split);
    if (runs.empty())
      continue; // no visible key: the rows stay zero
    int64_t r0 = qb * table.blockQ;
    out = emit(b, loc, out, b.getIndexAttr(r0), b.getIndexAttr(r0),
               b.getIndexAttr(std::min(sq - r0, table.blockQ)),
               segmentsOf(b, runs));
  }
  return out;
}

/// softmax(x + mask) over the last dim, computing only the non-M blocks.
Value lowerMaskedSoftmax(IRRewriter &rewriter, MaskedSoftmaxOp op,
                         const MaskBlocks &table) {
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Value x = op.getInput(), mask = op.getMask();
  auto [sq, sk] = *trailingShape(x.getType());
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  float negInf = -std::numeric_limits<float>::infinity();

  SmallVector<OpFoldResult> lead = leadingSizes(rewriter, loc, x);
  SmallVector<OpFoldResult> sizes(lead);
  sizes.append({rewriter.getIndexAttr(sq), rewriter.getIndexAttr(sk)});
  // The mask's leading dims broadcast to the input's (checked at run time
  // where dynamic, as in the generic lowering).
  assertBroadcastable(rewriter, loc, mask, sizes,
                      "transformer.masked_softmax: mask");
  SmallVector<OpFoldResult> maskLead = leadingSizes(rewriter, loc, mask);
  Value out = filledTensor(rewriter, loc, sizes, 0.0f);

  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap rows = rowMap(ctx, rank);
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  SmallVector<utils::IteratorType> reduceLast(parallel);
  reduceLast.back() = utils::IteratorType::reduction;

  auto emit = [&](OpBuilder &b, Location loc, Value out, OpFoldResult outRow0,
                  OpFoldResult r0, OpFoldResult rn,
                  ArrayRef<Segment> segments) -> Value {
    Value negInfValue =
        arith::ConstantOp::create(b, loc, b.getF32FloatAttr(negInf));
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    // The scores of each segment: x, plus the mask in masked segments.
    struct Part {
      Slice slice, outSlice;
      SmallVector<MappedInput> scores;
    };
    SmallVector<Part, 3> parts;
    for (const Segment &segment : segments) {
      Part part{sliceOf(b, lead, r0, rn, segment.begin, segment.size),
                sliceOf(b, lead, outRow0, rn, segment.begin, segment.size),
                {}};
      part.scores.push_back({extract(b, loc, x, part.slice), identity});
      if (segment.partial) {
        Value maskSlice =
            extract(b, loc, mask,
                    sliceOf(b, maskLead, r0, rn, segment.begin, segment.size));
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
    rowSizes.push_back(rn);
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
      Value dest = extract(b, loc, out, part.outSlice);
      Value probs = buildGeneric(
          b, loc, dest, {{e, identity}, {sum, rows}}, identity, parallel,
          [&](OpBuilder &b, Location loc, ValueRange in, Value) -> Value {
            Value quotient = arith::DivFOp::create(b, loc, in[0], in[1]);
            Value empty = arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::OEQ, in[1], zero);
            return arith::SelectOp::create(b, loc, empty, zero, quotient);
          });
      out = insert(b, loc, probs, out, part.outSlice);
    }
    return out;
  };
  out = emitRowBlocks(rewriter, loc, out, table, sq, sk, /*split=*/true, emit);
  return castToType(rewriter, loc, out, cast<RankedTensorType>(op.getType()),
                    "masked_softmax");
}

/// lhs @ rhs where lhs has the zero blocks of `table`: per block of rows,
/// one contraction per range of non-M key blocks.
Value lowerMatmul(IRRewriter &rewriter, MatmulOp op, const MaskBlocks &table) {
  Location loc = op.getLoc();
  Value lhs = op.getLhs(), rhs = op.getRhs();
  auto [sq, sk] = *trailingShape(lhs.getType());
  int64_t rank = cast<RankedTensorType>(lhs.getType()).getRank();
  int64_t rhsRank = cast<RankedTensorType>(rhs.getType()).getRank();
  bool transposeB = op.getTransposeB();
  int64_t kDim = transposeB ? rhsRank - 1 : rhsRank - 2;
  int64_t nDim = transposeB ? rhsRank - 2 : rhsRank - 1;
  // The run-time checks of the generic lowering (MatmulLowering).
  assertEqualSizes(rewriter, loc, rewriter.getIndexAttr(sk),
                   dimSize(rewriter, loc, rhs, kDim),
                   "transformer.matmul: the inner dimensions of lhs and rhs "
                   "differ",
                   "lhs K", "rhs K");
  if (rhsRank == rank)
    for (int64_t i = 0; i + 2 < rank; ++i)
      assertEqualSizes(rewriter, loc, dimSize(rewriter, loc, lhs, i),
                       dimSize(rewriter, loc, rhs, i),
                       "transformer.matmul: batch dimension " + Twine(i) +
                           " of lhs and rhs differ",
                       "lhs", "rhs");

  SmallVector<OpFoldResult> lead = leadingSizes(rewriter, loc, lhs);
  SmallVector<OpFoldResult> rhsLead = leadingSizes(rewriter, loc, rhs);
  OpFoldResult n = dimSize(rewriter, loc, rhs, nDim);
  SmallVector<OpFoldResult> sizes(lead);
  sizes.append({rewriter.getIndexAttr(sq), n});
  Value out = filledTensor(rewriter, loc, sizes, 0.0f);

  auto emit = [&](OpBuilder &b, Location loc, Value out, OpFoldResult outRow0,
                  OpFoldResult r0, OpFoldResult rn,
                  ArrayRef<Segment> segments) -> Value {
    // The block of rows of the result, [lead..., rn, N].
    Slice rowsOut = sliceOf(b, lead, outRow0, rn, b.getIndexAttr(0), n);
    Value acc = extract(b, loc, out, rowsOut);
    for (const Segment &segment : segments) {
      Value lhsSlice = extract(
          b, loc, lhs, sliceOf(b, lead, r0, rn, segment.begin, segment.size));
      Slice rhsRows = sliceOf(b, rhsLead, segment.begin, segment.size,
                              b.getIndexAttr(0), n);
      if (transposeB) {
        std::swap(rhsRows.offsets[rhsRank - 2], rhsRows.offsets[rhsRank - 1]);
        std::swap(rhsRows.sizes[rhsRank - 2], rhsRows.sizes[rhsRank - 1]);
      }
      Value rhsSlice = extract(b, loc, rhs, rhsRows);
      acc = buildContraction(b, loc, lhsSlice, rhsSlice, transposeB,
                             [&](ArrayRef<OpFoldResult>) { return acc; });
    }
    return insert(b, loc, acc, out, rowsOut);
  };
  out = emitRowBlocks(rewriter, loc, out, table, sq, sk, /*split=*/false, emit);
  return castToType(rewriter, loc, out, cast<RankedTensorType>(op.getType()),
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
