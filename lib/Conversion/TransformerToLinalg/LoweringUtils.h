//===- LoweringUtils.h - Helpers shared by the lowering patterns -*- C++
//-*-===//
//
// Builders for the linalg.generic shapes the lowering needs (element-wise
// with numpy broadcasting, row reductions, contractions) and for the run-time
// checks of dynamic dimensions.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_CONVERSION_TRANSFORMERTOLINALG_LOWERINGUTILS_H
#define TRANSFORMER_LIB_CONVERSION_TRANSFORMERTOLINALG_LOWERINGUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::transformer::lowering {

/// Size of dimension `dim` of the ranked tensor `value`.
OpFoldResult dimSize(OpBuilder &b, Location loc, Value value, int64_t dim);

/// Materialises a size as an `index` value.
Value toIndexValue(OpBuilder &b, Location loc, OpFoldResult size);

/// Converts a size to an f32 value (for means and 1/sqrt(D)).
Value toF32(OpBuilder &b, Location loc, OpFoldResult size);

/// A value shown when a run-time check fails: `label = value`.
struct CheckedValue {
  std::string label;
  Value value;
};

/// Emits a run-time check: when `ok` is false, prints the message followed
/// by ` (label = value, ...)` and aborts (`vector.print` then `cf.assert`).
void emitRuntimeCheck(OpBuilder &b, Location loc, Value ok,
                      const Twine &message, ArrayRef<CheckedValue> values);

/// Checks at run time that two sizes are equal, unless both are static;
/// a failure shows both sizes under their labels.
void assertEqualSizes(OpBuilder &b, Location loc, OpFoldResult lhs,
                      OpFoldResult rhs, const Twine &message,
                      StringRef lhsLabel, StringRef rhsLabel);

/// The run-time checks of `transformer.attention`'s operand sizes that the
/// verifier cannot see (dynamic dims): equal batch dims of query, key and
/// value but the heads, key and value heads that divide the query's, equal
/// head dims of query and key, equal key and value lengths.
/// Shared by the generic lowering and the CPU flash kernel.
void assertAttentionShapes(OpBuilder &b, Location loc, Value q, Value k,
                           Value v);

/// The sizes of a tensor of type `type`: its static dims, and for each
/// dynamic dim the matching entry of `candidates` as an index value (so that
/// tensor.empty of the sizes has exactly the type `type`).
SmallVector<OpFoldResult> sizesOfType(OpBuilder &b, Location loc,
                                      RankedTensorType type,
                                      ArrayRef<OpFoldResult> candidates);

/// The f32 tensor type of `sizes` (static where a size is an attribute).
RankedTensorType tensorTypeOf(MLIRContext *ctx, ArrayRef<OpFoldResult> sizes);

/// A tensor.empty of f32 with `sizes`, optionally filled with `fill`.
Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes);
Value filledTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                   float fill);

/// The map through which a tensor of type `type` is read, numpy-broadcast,
/// in a loop nest over `sizes` (aligned at the trailing dims; a static 1
/// against a size that is not a static 1 reads index 0).
AffineMap broadcastMap(MLIRContext *ctx, RankedTensorType type,
                       ArrayRef<OpFoldResult> sizes);

/// Checks at run time that every dim of `value` that `broadcastMap` does not
/// broadcast equals the matching entry of `sizes`.
void assertBroadcastable(OpBuilder &b, Location loc, Value value,
                         ArrayRef<OpFoldResult> sizes, const Twine &what);

/// Map of the first `rank - 1` loops: a row value broadcast along the last.
AffineMap rowMap(MLIRContext *ctx, int64_t rank);

/// One input of buildGeneric and the map it is read through.
struct MappedInput {
  Value value;
  AffineMap map;
};

/// Body of a linalg.generic: gets the input elements and the accumulator (the
/// current output element) and returns the new output element.
using GenericBody =
    function_ref<Value(OpBuilder &, Location, ValueRange inputs, Value acc)>;

/// Builds a linalg.generic with one output `init` written through `outMap`.
Value buildGeneric(OpBuilder &b, Location loc, Value init,
                   ArrayRef<MappedInput> inputs, AffineMap outMap,
                   ArrayRef<utils::IteratorType> iterators, GenericBody body);

/// Element-wise generic over `sizes` reading `inputs` with numpy
/// broadcasting (checked at run time); `opName` names the op in the checks.
Value buildElementwise(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                       ValueRange inputs, StringRef opName, GenericBody body);

/// Makes the accumulator of a contraction from its sizes.
using InitBuilder = function_ref<Value(ArrayRef<OpFoldResult> sizes)>;

/// The batched product lhs @ rhs (rhs^T with `transposeB`; a rank-2 rhs is
/// shared by the batch) as a linalg named op: linalg.matmul for rank 2,
/// linalg.batch_matmul for rank 3, linalg.contract otherwise; a transposed
/// rhs is read through the op's indexing_maps. The accumulator comes from
/// `makeInit` (zeros when null). The result has the lhs batch dims, lhs M
/// and rhs N; the caller casts it to its declared type.
Value buildContraction(OpBuilder &b, Location loc, Value lhs, Value rhs,
                       bool transposeB, InitBuilder makeInit = nullptr);

/// Reduces the last dim of `input` (whose sizes are `sizes`) into a tensor of
/// the leading dims with linalg.reduce, starting from `init` and combining
/// with `combine`.
Value reduceLastDim(OpBuilder &b, Location loc, Value input,
                    ArrayRef<OpFoldResult> sizes, float init,
                    GenericBody combine);

/// Softmax over the last dim of `input`. With `zeroFullyMasked`, a row whose
/// maximum is -inf gives zeros instead of NaN (masked_softmax semantics).
Value buildSoftmax(OpBuilder &b, Location loc, Value input,
                   ArrayRef<OpFoldResult> sizes, bool zeroFullyMasked);

/// Casts `value` to `type` (same rank), checking at run time every dim that
/// is dynamic in `value` and static in `type`.
Value castToType(OpBuilder &b, Location loc, Value value, RankedTensorType type,
                 StringRef opName);

/// Fails with a diagnostic if some operand or the result of `op` is
/// unranked.
LogicalResult checkRankedTypes(Operation *op);

} // namespace mlir::transformer::lowering

#endif // TRANSFORMER_LIB_CONVERSION_TRANSFORMERTOLINALG_LOWERINGUTILS_H
