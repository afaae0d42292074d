//===- TransformerOps.cpp - transformer dialect ops -----------------------===//
//
// The shape function (`inferResultType`) of every op. The verifier of each op
// calls it with `emitErrors = true`; `--transformer-shape-inference` calls it
// through the ShapeInferenceOpInterface. Folders live here too; the DRR
// canonicalization patterns are in TransformerCanonicalize.cpp.
//
//===----------------------------------------------------------------------===//

#include "Transformer/IR/TransformerOps.h"

#include "Transformer/Utils/ShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::transformer;

namespace {
/// Collects what every shape function needs: the op, whether to report
/// errors, and shorthands for ranked operand types.
class ShapeChecker {
public:
  ShapeChecker(Operation *op, bool emitErrors)
      : op(op), emitErrors(emitErrors) {}

  /// Reports `msg` on the op when errors are wanted; always returns failure.
  FailureOr<TensorType> fail(const Twine &msg) {
    if (emitErrors)
      op->emitOpError(msg);
    return failure();
  }

  /// An unranked f32 tensor: the answer while an operand is still unranked.
  TensorType unknown() {
    return UnrankedTensorType::get(Float32Type::get(op->getContext()));
  }

  TensorType ranked(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, Float32Type::get(op->getContext()));
  }

  /// Fails (with a message naming `what` and its type) when `value` is
  /// ranked with a rank below `minRank`.
  LogicalResult checkMinRank(Value value, StringRef what, int64_t minRank) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || type.getRank() >= minRank)
      return success();
    (void)fail(Twine(what) + " must have rank >= " + Twine(minRank) + ", got " +
               quoted(type));
    return failure();
  }

  LogicalResult checkRank(Value value, StringRef what, int64_t rank) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || type.getRank() == rank)
      return success();
    (void)fail(Twine(what) + " must have rank " + Twine(rank) + ", got " +
               quoted(type));
    return failure();
  }

private:
  Operation *op;
  bool emitErrors;
};

RankedTensorType rankedType(Value value) {
  return dyn_cast<RankedTensorType>(value.getType());
}

std::string dimStr(int64_t dim) {
  return ShapedType::isDynamic(dim) ? "?" : std::to_string(dim);
}
} // namespace

/// Shared by the ops whose result has the shape of their (only) input.
static FailureOr<TensorType>
inferSameAsInput(Operation *op, Value input, int64_t minRank, bool emitErrors) {
  ShapeChecker check(op, emitErrors);
  if (failed(check.checkMinRank(input, "input", minRank)))
    return failure();
  return cast<TensorType>(input.getType());
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

FailureOr<TensorType> MatmulOp::inferResultType(bool emitErrors) {
  ShapeChecker check(*this, emitErrors);
  if (failed(check.checkMinRank(getLhs(), "lhs", 2)) ||
      failed(check.checkMinRank(getRhs(), "rhs", 2)))
    return failure();
  RankedTensorType lhs = rankedType(getLhs()), rhs = rankedType(getRhs());
  if (!lhs || !rhs)
    return check.unknown();
  int64_t rank = lhs.getRank();
  if (rhs.getRank() != rank && rhs.getRank() != 2)
    return check.fail("rhs must have the rank of lhs (" + Twine(rank) +
                      ") or rank 2, got lhs " + quoted(lhs) + " and rhs " +
                      quoted(rhs));
  ArrayRef<int64_t> a = lhs.getShape(), b = rhs.getShape();
  SmallVector<int64_t> shape;
  bool broadcastRhs = rhs.getRank() != rank;
  for (int64_t i = 0; i < rank - 2; ++i) {
    if (!broadcastRhs && !dimsMayMatch(a[i], b[i]))
      return check.fail("batch dimensions differ: lhs " + quoted(lhs) +
                        " and rhs " + quoted(rhs));
    shape.push_back(broadcastRhs ? a[i] : meetDims(a[i], b[i]));
  }
  int64_t rhsRank = rhs.getRank();
  int64_t kRhs = getTransposeB() ? b[rhsRank - 1] : b[rhsRank - 2];
  int64_t n = getTransposeB() ? b[rhsRank - 2] : b[rhsRank - 1];
  if (!dimsMayMatch(a[rank - 1], kRhs))
    return check.fail("contracting dimensions differ: lhs " + quoted(lhs) +
                      " has K = " + dimStr(a[rank - 1]) + " but rhs " +
                      quoted(rhs) + " has K = " + dimStr(kRhs) +
                      (getTransposeB() ? " (transpose_b)" : ""));
  shape.push_back(a[rank - 2]);
  shape.push_back(n);
  return check.ranked(shape);
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

SmallVector<int64_t> TransposeOp::getEffectivePermutation(int64_t rank) {
  if (std::optional<ArrayRef<int64_t>> perm = getPermutation())
    return SmallVector<int64_t>(*perm);
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (rank >= 2)
    std::swap(perm[rank - 1], perm[rank - 2]);
  return perm;
}

FailureOr<TensorType> TransposeOp::inferResultType(bool emitErrors) {
  ShapeChecker check(*this, emitErrors);
  if (failed(check.checkMinRank(getInput(), "input", 2)))
    return failure();
  RankedTensorType input = rankedType(getInput());
  if (std::optional<ArrayRef<int64_t>> perm = getPermutation()) {
    SmallVector<bool> seen(perm->size(), false);
    for (int64_t p : *perm) {
      if (p < 0 || p >= static_cast<int64_t>(perm->size()) || seen[p])
        return check.fail(
            "permutation must be a permutation of 0.." +
            Twine(static_cast<int64_t>(perm->size()) - 1) + ", got [" +
            llvm::join(llvm::map_range(
                           *perm, [](int64_t v) { return std::to_string(v); }),
                       ", ") +
            "]");
      seen[p] = true;
    }
    if (input && static_cast<int64_t>(perm->size()) != input.getRank())
      return check.fail("permutation has " + Twine(perm->size()) +
                        " entries but the input " + quoted(input) +
                        " has rank " + Twine(input.getRank()));
  }
  if (!input)
    return check.unknown();
  SmallVector<int64_t> shape;
  for (int64_t p : getEffectivePermutation(input.getRank()))
    shape.push_back(input.getDimSize(p));
  return check.ranked(shape);
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  auto input = rankedType(getInput());
  if (!input || input != getType())
    return {};
  SmallVector<int64_t> perm = getEffectivePermutation(input.getRank());
  for (auto [i, p] : llvm::enumerate(perm))
    if (static_cast<int64_t>(i) != p)
      return {};
  return getInput();
}

//===----------------------------------------------------------------------===//
// LinearOp
//===----------------------------------------------------------------------===//

FailureOr<TensorType> LinearOp::inferResultType(bool emitErrors) {
  ShapeChecker check(*this, emitErrors);
  if (failed(check.checkMinRank(getInput(), "input", 1)) ||
      failed(check.checkRank(getWeight(), "weight", 2)) ||
      failed(check.checkRank(getBias(), "bias", 1)))
    return failure();
  RankedTensorType x = rankedType(getInput()), w = rankedType(getWeight()),
                   b = rankedType(getBias());
  if (x && w && !dimsMayMatch(x.getShape().back(), w.getDimSize(1)))
    return check.fail("input " + quoted(x) + " has K = " +
                      dimStr(x.getShape().back()) + " but weight " + quoted(w) +
                      " (NxK) has K = " + dimStr(w.getDimSize(1)));
  if (w && b && !dimsMayMatch(w.getDimSize(0), b.getDimSize(0)))
    return check.fail("bias " + quoted(b) + " does not match the N = " +
                      dimStr(w.getDimSize(0)) + " of weight " + quoted(w));
  if (!x)
    return check.unknown();
  SmallVector<int64_t> shape(x.getShape().drop_back());
  int64_t n = ShapedType::kDynamic;
  if (w)
    n = w.getDimSize(0);
  if (b)
    n = meetDims(n, b.getDimSize(0));
  shape.push_back(n);
  return check.ranked(shape);
}

//===----------------------------------------------------------------------===//
// Element-wise ops
//===----------------------------------------------------------------------===//

FailureOr<TensorType> ScaleOp::inferResultType(bool emitErrors) {
  return inferSameAsInput(*this, getInput(), 1, emitErrors);
}

OpFoldResult ScaleOp::fold(FoldAdaptor) {
  if (getFactor().convertToFloat() == 1.0f && getInput().getType() == getType())
    return getInput();
  return {};
}

/// Numpy broadcasting of the two operands of a binary op.
static FailureOr<TensorType> inferBroadcast(Operation *op, Value lhs, Value rhs,
                                            bool emitErrors) {
  ShapeChecker check(op, emitErrors);
  if (failed(check.checkMinRank(lhs, "lhs", 1)) ||
      failed(check.checkMinRank(rhs, "rhs", 1)))
    return failure();
  RankedTensorType a = rankedType(lhs), b = rankedType(rhs);
  if (!a || !b)
    return check.unknown();
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(a.getShape(), b.getShape());
  if (failed(shape))
    return check.fail("operands are not broadcast-compatible: " + quoted(a) +
                      " and " + quoted(b));
  return check.ranked(*shape);
}

FailureOr<TensorType> AddOp::inferResultType(bool emitErrors) {
  return inferBroadcast(*this, getLhs(), getRhs(), emitErrors);
}
FailureOr<TensorType> SubOp::inferResultType(bool emitErrors) {
  return inferBroadcast(*this, getLhs(), getRhs(), emitErrors);
}
FailureOr<TensorType> MulOp::inferResultType(bool emitErrors) {
  return inferBroadcast(*this, getLhs(), getRhs(), emitErrors);
}
FailureOr<TensorType> DivOp::inferResultType(bool emitErrors) {
  return inferBroadcast(*this, getLhs(), getRhs(), emitErrors);
}

FailureOr<TensorType> ReluOp::inferResultType(bool emitErrors) {
  return inferSameAsInput(*this, getInput(), 1, emitErrors);
}

FailureOr<TensorType> GeluOp::inferResultType(bool emitErrors) {
  if (getApproximate() != "tanh" && getApproximate() != "none")
    return ShapeChecker(*this, emitErrors)
        .fail("approximate must be \"tanh\" or \"none\", got \"" +
              getApproximate() + "\"");
  return inferSameAsInput(*this, getInput(), 1, emitErrors);
}

FailureOr<TensorType> SiluOp::inferResultType(bool emitErrors) {
  return inferSameAsInput(*this, getInput(), 1, emitErrors);
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

FailureOr<TensorType> SoftmaxOp::inferResultType(bool emitErrors) {
  return inferSameAsInput(*this, getInput(), 1, emitErrors);
}

FailureOr<TensorType> MaskedSoftmaxOp::inferResultType(bool emitErrors) {
  ShapeChecker check(*this, emitErrors);
  if (failed(check.checkMinRank(getInput(), "input", 2)) ||
      failed(check.checkMinRank(getMask(), "mask", 1)))
    return failure();
  RankedTensorType x = rankedType(getInput()), mask = rankedType(getMask());
  if (!x)
    return check.unknown();
  if (!mask)
    return cast<TensorType>(x);
  if (!broadcastsInto(mask.getShape(), x.getShape()))
    return check.fail("mask " + quoted(mask) +
                      " does not broadcast to the input " + quoted(x));
  // A static mask dimension other than 1 pins the input dimension.
  SmallVector<int64_t> shape(x.getShape());
  int64_t lead = x.getRank() - mask.getRank();
  for (int64_t i = 0; i < mask.getRank(); ++i)
    if (mask.getDimSize(i) != 1)
      shape[lead + i] = meetDims(shape[lead + i], mask.getDimSize(i));
  return check.ranked(shape);
}

/// The shape function of layer_norm and rms_norm: `epsilon` finite and
/// non-negative, `params` (gamma, beta) rank-1 and of the input's last
/// dimension.
static FailureOr<TensorType>
inferNormalization(Operation *op, Value input, float epsilon,
                   ArrayRef<std::pair<StringRef, Value>> params,
                   bool emitErrors) {
  ShapeChecker check(op, emitErrors);
  if (!(epsilon >= 0.0f) || std::isinf(epsilon))
    return check.fail("epsilon must be a finite non-negative number, got " +
                      llvm::formatv("{0}", epsilon).str());
  if (failed(check.checkMinRank(input, "input", 1)))
    return failure();
  for (auto [name, value] : params)
    if (failed(check.checkRank(value, name, 1)))
      return failure();
  RankedTensorType x = rankedType(input);
  if (!x)
    return check.unknown();
  int64_t d = x.getShape().back();
  for (auto [name, value] : params) {
    RankedTensorType param = rankedType(value);
    if (!param)
      continue;
    if (!dimsMayMatch(d, param.getDimSize(0)))
      return check.fail(name + " " + quoted(param) +
                        " does not match the last dimension of the input " +
                        quoted(x));
    d = meetDims(d, param.getDimSize(0));
  }
  SmallVector<int64_t> shape(x.getShape());
  shape.back() = d;
  return check.ranked(shape);
}

FailureOr<TensorType> LayerNormOp::inferResultType(bool emitErrors) {
  return inferNormalization(*this, getInput(), getEpsilon().convertToFloat(),
                            {{"gamma", getGamma()}, {"beta", getBeta()}},
                            emitErrors);
}

FailureOr<TensorType> RmsNormOp::inferResultType(bool emitErrors) {
  return inferNormalization(*this, getInput(), getEpsilon().convertToFloat(),
                            {{"gamma", getGamma()}}, emitErrors);
}

//===----------------------------------------------------------------------===//
// Embeddings and positions
//===----------------------------------------------------------------------===//

FailureOr<TensorType> EmbeddingOp::inferResultType(bool emitErrors) {
  ShapeChecker check(*this, emitErrors);
  if (failed(check.checkMinRank(getIds(), "ids", 1)) ||
      failed(check.checkRank(getTable(), "table", 2)))
    return failure();
  RankedTensorType ids = rankedType(getIds()), table = rankedType(getTable());
  if (!ids)
    return check.unknown();
  SmallVector<int64_t> shape(ids.getShape());
  shape.push_back(table ? table.getDimSize(1) : ShapedType::kDynamic);
  return check.ranked(shape);
}

FailureOr<TensorType> RopeOp::inferResultType(bool emitErrors) {
  ShapeChecker check(*this, emitErrors);
  float base = getBase().convertToFloat();
  if (!(base > 0.0f) || std::isinf(base))
    return check.fail("base must be a finite positive number, got " +
                      llvm::formatv("{0}", base).str());
  if (failed(check.checkMinRank(getInput(), "input", 2)))
    return failure();
  RankedTensorType x = rankedType(getInput());
  if (x && !ShapedType::isDynamic(x.getShape().back()) &&
      x.getShape().back() % 2 != 0)
    return check.fail("the last dimension of the input " + quoted(x) +
                      " must be even (rope rotates pairs)");
  if (Value freqs = getFreqs()) {
    if (failed(check.checkRank(freqs, "freqs", 1)))
      return failure();
    RankedTensorType f = rankedType(freqs);
    if (x && f && !ShapedType::isDynamic(x.getShape().back()) &&
        !dimsMayMatch(f.getDimSize(0), x.getShape().back() / 2))
      return check.fail("freqs " + quoted(f) +
                        " must have D/2 = " + Twine(x.getShape().back() / 2) +
                        " entries, one per rotated pair of the input " +
                        quoted(x));
  }
  return cast<TensorType>(getInput().getType());
}

//===----------------------------------------------------------------------===//
// Block-quantized weights
//===----------------------------------------------------------------------===//

int64_t transformer::getBlockBytes(BlockFormat format) {
  switch (format) {
  case BlockFormat::q8_0:
    return 2 + kQuantBlockSize;
  case BlockFormat::q4_0:
    return 2 + kQuantBlockSize / 2;
  }
  llvm_unreachable("a BlockFormat without a block size");
}

FailureOr<TensorType> DequantizeOp::inferResultType(bool emitErrors) {
  ShapeChecker check(*this, emitErrors);
  StringRef format = stringifyBlockFormat(getFormat());
  int64_t blockBytes = getBlockBytes(getFormat());
  if (failed(check.checkMinRank(getInput(), "input", 2)))
    return failure();
  // A declared row length that blocks of 32 cannot make.
  if (auto result = rankedType(getResult()); result && result.getRank() >= 1) {
    int64_t row = result.getShape().back();
    if (!ShapedType::isDynamic(row) && row % kQuantBlockSize != 0)
      return check.fail("the rows of the result " + quoted(result) +
                        " must be a multiple of " + Twine(kQuantBlockSize) +
                        " long, the block size of " + format + ", got " +
                        Twine(row));
  }
  RankedTensorType input = rankedType(getInput());
  if (!input)
    return check.unknown();
  ArrayRef<int64_t> shape = input.getShape();
  // The block size is the format's: a dynamic one would let a wrong input
  // be read past its rows.
  if (shape.back() != blockBytes)
    return check.fail("the last dimension of the input " + quoted(input) +
                      " must be " + Twine(blockBytes) + ", the bytes of a " +
                      format + " block, got " + dimStr(shape.back()));
  SmallVector<int64_t> result(shape.drop_back(2));
  int64_t blocks = shape[shape.size() - 2];
  if (!ShapedType::isDynamic(blocks) &&
      blocks > std::numeric_limits<int64_t>::max() / kQuantBlockSize)
    return check.fail("the input " + quoted(input) + " has too many blocks");
  result.push_back(ShapedType::isDynamic(blocks) ? ShapedType::kDynamic
                                                 : blocks * kQuantBlockSize);
  return check.ranked(result);
}

//===----------------------------------------------------------------------===//
// Masks and attention
//===----------------------------------------------------------------------===//

FailureOr<TensorType> CreateCausalMaskOp::inferResultType(bool emitErrors) {
  if (std::optional<int64_t> window = getWindow(); window && *window < 1)
    return ShapeChecker(*this, emitErrors)
        .fail("window must be at least 1, got " + std::to_string(*window));
  auto type = rankedType(getResult());
  if (!type || type.getRank() < 2 || !type.hasStaticShape())
    return ShapeChecker(*this, emitErrors)
        .fail("result must have a static shape of rank >= 2, got " +
              quoted(getResult().getType()));
  return cast<TensorType>(type);
}

std::optional<float> AttentionOp::getEffectiveScale() {
  if (std::optional<APFloat> scale = getScale())
    return scale->convertToFloat();
  auto q = rankedType(getQuery());
  if (!q || ShapedType::isDynamic(q.getShape().back()))
    return std::nullopt;
  return 1.0f / std::sqrt(static_cast<float>(q.getShape().back()));
}

FailureOr<TensorType> AttentionOp::inferResultType(bool emitErrors) {
  ShapeChecker check(*this, emitErrors);
  if (std::optional<int64_t> window = getWindow()) {
    if (*window < 1)
      return check.fail("window must be at least 1, got " +
                        std::to_string(*window));
    if (!getCausal())
      return check.fail("window requires the causal attribute");
  }
  if (failed(check.checkMinRank(getQuery(), "query", 2)) ||
      failed(check.checkMinRank(getKey(), "key", 2)) ||
      failed(check.checkMinRank(getValue(), "value", 2)))
    return failure();
  RankedTensorType q = rankedType(getQuery()), k = rankedType(getKey()),
                   v = rankedType(getValue());
  if (!q || !k || !v)
    return check.unknown();
  int64_t rank = q.getRank();
  if (k.getRank() != rank || v.getRank() != rank)
    return check.fail("query, key and value must have the same rank, got " +
                      quoted(q) + ", " + quoted(k) + " and " + quoted(v));
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank - 2; ++i) {
    int64_t qd = q.getDimSize(i), kd = k.getDimSize(i), vd = v.getDimSize(i);
    if (!dimsMayMatch(kd, vd))
      return check.fail("batch dimensions differ: key " + quoted(k) +
                        " and value " + quoted(v));
    kd = meetDims(kd, vd);
    // The heads (the batch dimension before Sq, when another precedes it)
    // of key and value may divide the query's: grouped-query attention.
    if (rank >= 4 && i == rank - 3) {
      if (!ShapedType::isDynamic(qd) && !ShapedType::isDynamic(kd) &&
          (kd == 0 ? qd != 0 : qd % kd != 0))
        return check.fail(
            "batch dimensions differ: query " + quoted(q) + ", key " +
            quoted(k) + ", value " + quoted(v) + " (the query's " + Twine(qd) +
            " heads are not a multiple of the key's " + Twine(kd) + ")");
      shape.push_back(qd);
      continue;
    }
    if (!dimsMayMatch(qd, kd))
      return check.fail("batch dimensions differ: query " + quoted(q) +
                        ", key " + quoted(k) + ", value " + quoted(v));
    shape.push_back(meetDims(qd, kd));
  }
  if (!dimsMayMatch(q.getShape().back(), k.getShape().back()))
    return check.fail("head dimensions differ: query " + quoted(q) +
                      " and key " + quoted(k));
  if (!dimsMayMatch(k.getDimSize(rank - 2), v.getDimSize(rank - 2)))
    return check.fail("key " + quoted(k) + " and value " + quoted(v) +
                      " have different sequence lengths");
  int64_t sq = q.getDimSize(rank - 2);
  int64_t sk = meetDims(k.getDimSize(rank - 2), v.getDimSize(rank - 2));
  if (Value maskValue = getMask()) {
    if (failed(check.checkMinRank(maskValue, "mask", 1)))
      return failure();
    if (RankedTensorType mask = rankedType(maskValue)) {
      SmallVector<int64_t> scores(shape);
      scores.push_back(sq);
      scores.push_back(sk);
      if (!broadcastsInto(mask.getShape(), scores))
        return check.fail("mask " + quoted(mask) +
                          " does not broadcast to the scores " +
                          quoted(check.ranked(scores)));
    }
  }
  if (std::optional<APFloat> scale = getScale();
      scale && !scale->isFiniteNonZero())
    return check.fail("scale must be finite and non-zero");
  shape.push_back(sq);
  shape.push_back(v.getShape().back());
  return check.ranked(shape);
}

#define GET_OP_CLASSES
#include "Transformer/IR/TransformerOps.cpp.inc"

#include "Transformer/IR/TransformerEnums.cpp.inc"
