//===- TransformerCanonicalize.cpp - Canonicalization patterns ------------===//
//
// Registers the DRR patterns of TransformerCanonicalize.td on their ops and
// implements the folders of the element-wise identities.
//
//===----------------------------------------------------------------------===//

#include "Transformer/IR/TransformerOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::transformer;

/// Whether `value` is a constant whose elements all equal `expected`.
static bool isSplatConstant(Value value, double expected) {
  DenseFPElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.isSplat())
    return false;
  return attr.getSplatValue<APFloat>().convertToDouble() == expected;
}

/// Whether an attribute (as passed to a folder) is a float splat of
/// `expected`.
static bool isSplatAttr(Attribute attr, double expected) {
  auto dense = dyn_cast_if_present<DenseFPElementsAttr>(attr);
  return dense && dense.isSplat() &&
         dense.getSplatValue<APFloat>().convertToDouble() == expected;
}

/// Whether `perm` (possibly unset) swaps exactly the last two dimensions of
/// `value`.
static bool swapsLastTwoDims(Value value, DenseI64ArrayAttr perm) {
  if (!perm)
    return true;
  ArrayRef<int64_t> p = perm.asArrayRef();
  int64_t rank = p.size();
  if (rank < 2)
    return false;
  for (int64_t i = 0; i < rank - 2; ++i)
    if (p[i] != i)
      return false;
  return p[rank - 2] == rank - 1 && p[rank - 1] == rank - 2;
}

/// The permutation of transpose(transpose(x, inner), outer) as one
/// transpose of `x`: result dim i is x dim inner[outer[i]].
static DenseI64ArrayAttr composePermutations(Builder &builder, Value x,
                                             DenseI64ArrayAttr inner,
                                             DenseI64ArrayAttr outer) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  auto effective = [&](DenseI64ArrayAttr perm) {
    if (perm)
      return SmallVector<int64_t>(perm.asArrayRef());
    SmallVector<int64_t> swap = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(swap[rank - 1], swap[rank - 2]);
    return swap;
  };
  SmallVector<int64_t> p1 = effective(inner), p2 = effective(outer);
  SmallVector<int64_t> composed;
  for (int64_t i : p2)
    composed.push_back(p1[i]);
  return builder.getDenseI64ArrayAttr(composed);
}

namespace {
#include "TransformerCanonicalize.inc"
} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<TransposeTransposeOptPattern>(context);
}

void ScaleOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<ScaleScaleOptPattern>(context);
}

void MatmulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<MatmulTransposeBOptPattern>(context);
}

void MaskedSoftmaxOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<MaskedSoftmaxZeroMaskOptPattern>(context);
}

/// Folds `x op c` and `c op x` to x when c is a splat of the op's identity
/// and the type does not change (a constant operand that broadcasts the
/// result to a larger shape must stay).
template <typename OpTy>
static OpFoldResult foldIdentitySplat(OpTy op, Attribute lhs, Attribute rhs,
                                      double identity) {
  if (isSplatAttr(rhs, identity) && op.getLhs().getType() == op.getType())
    return op.getLhs();
  if (isSplatAttr(lhs, identity) && op.getRhs().getType() == op.getType())
    return op.getRhs();
  return {};
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  return foldIdentitySplat(*this, adaptor.getLhs(), adaptor.getRhs(), 0.0);
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  return foldIdentitySplat(*this, adaptor.getLhs(), adaptor.getRhs(), 1.0);
}
