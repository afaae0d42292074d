//===- LoweringUtils.cpp - Helpers shared by the lowering patterns --------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::lowering;

OpFoldResult lowering::dimSize(OpBuilder &b, Location loc, Value value,
                               int64_t dim) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.isDynamicDim(dim))
    return b.getIndexAttr(type.getDimSize(dim));
  return tensor::DimOp::create(b, loc, value, dim).getResult();
}

Value lowering::toIndexValue(OpBuilder &b, Location loc, OpFoldResult size) {
  if (auto value = dyn_cast<Value>(size))
    return value;
  return arith::ConstantIndexOp::create(
      b, loc, cast<IntegerAttr>(cast<Attribute>(size)).getInt());
}

Value lowering::toF32(OpBuilder &b, Location loc, OpFoldResult size) {
  if (auto attr = dyn_cast<Attribute>(size))
    return arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(cast<IntegerAttr>(attr).getInt()));
  Value i64 =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), cast<Value>(size));
  return arith::SIToFPOp::create(b, loc, b.getF32Type(), i64);
}

void lowering::emitRuntimeCheck(OpBuilder &b, Location loc, Value ok,
                                const Twine &message,
                                ArrayRef<CheckedValue> values) {
  if (values.empty()) {
    cf::AssertOp::create(b, loc, ok, message.str());
    return;
  }
  // The assert is marked for --transformer-lower-runtime-checks, which makes
  // it and its prints one call of the runtime library; unlowered, it still
  // prints and aborts.
  Value notOk = arith::XOrIOp::create(
      b, loc, ok, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
  scf::IfOp::create(b, loc, notOk, [&](OpBuilder &then, Location loc) {
    auto print = [&](StringRef text) {
      vector::PrintOp::create(then, loc, text);
    };
    for (auto [i, checked] : llvm::enumerate(values)) {
      print((i == 0 ? " (" : ", ") + checked.label + " = ");
      Value value = checked.value;
      if (value.getType().isIndex())
        value = arith::IndexCastOp::create(then, loc, then.getI64Type(), value);
      vector::PrintOp::create(then, loc, value,
                              vector::PrintPunctuation::NoPunctuation);
    }
    print(")");
    auto assertOp = cf::AssertOp::create(
        then, loc,
        arith::ConstantOp::create(then, loc, then.getBoolAttr(false)),
        message.str());
    assertOp->setAttr("transformer.runtime_check", then.getUnitAttr());
    scf::YieldOp::create(then, loc);
  });
}

void lowering::assertEqualSizes(OpBuilder &b, Location loc, OpFoldResult lhs,
                                OpFoldResult rhs, const Twine &message,
                                StringRef lhsLabel, StringRef rhsLabel) {
  std::optional<int64_t> l = getConstantIntValue(lhs);
  std::optional<int64_t> r = getConstantIntValue(rhs);
  if (l && r)
    return; // Both static: the verifier has already compared them.
  if (auto lv = dyn_cast<Value>(lhs))
    if (auto rv = dyn_cast<Value>(rhs))
      if (lv == rv)
        return;
  Value lhsValue = toIndexValue(b, loc, lhs),
        rhsValue = toIndexValue(b, loc, rhs);
  Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhsValue,
                                   rhsValue);
  emitRuntimeCheck(b, loc, eq, message,
                   {{lhsLabel.str(), lhsValue}, {rhsLabel.str(), rhsValue}});
}

SmallVector<OpFoldResult>
lowering::sizesOfType(OpBuilder &b, Location loc, RankedTensorType type,
                      ArrayRef<OpFoldResult> candidates) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (!type.isDynamicDim(i))
      sizes.push_back(b.getIndexAttr(type.getDimSize(i)));
    else
      sizes.push_back(toIndexValue(b, loc, candidates[i]));
  }
  return sizes;
}

RankedTensorType lowering::tensorTypeOf(MLIRContext *ctx,
                                        ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamic;
  dispatchIndexOpFoldResults(sizes, dynamic, shape);
  return RankedTensorType::get(shape, Float32Type::get(ctx));
}

Value lowering::emptyTensor(OpBuilder &b, Location loc,
                            ArrayRef<OpFoldResult> sizes) {
  return tensor::EmptyOp::create(b, loc, sizes, b.getF32Type());
}

Value lowering::filledTensor(OpBuilder &b, Location loc,
                             ArrayRef<OpFoldResult> sizes, float fill) {
  Value empty = emptyTensor(b, loc, sizes);
  Value value = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(fill));
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

/// Whether operand dim `size` (static 1) is stretched to the loop size.
static bool isBroadcastDim(int64_t operandDim, OpFoldResult loopSize) {
  if (operandDim != 1)
    return false;
  std::optional<int64_t> loop = getConstantIntValue(loopSize);
  return !loop || *loop != 1;
}

AffineMap lowering::broadcastMap(MLIRContext *ctx, RankedTensorType type,
                                 ArrayRef<OpFoldResult> sizes) {
  int64_t rank = sizes.size();
  int64_t lead = rank - type.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (isBroadcastDim(type.getDimSize(i), sizes[lead + i]))
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(lead + i, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

void lowering::assertBroadcastable(OpBuilder &b, Location loc, Value value,
                                   ArrayRef<OpFoldResult> sizes,
                                   const Twine &what) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t lead = sizes.size() - type.getRank();
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (isBroadcastDim(type.getDimSize(i), sizes[lead + i]))
      continue;
    assertEqualSizes(b, loc, dimSize(b, loc, value, i), sizes[lead + i],
                     what + ": dimension " + Twine(i) +
                         " does not match the result (dynamic dimensions "
                         "do not broadcast)",
                     "size", "expected");
  }
}

AffineMap lowering::rowMap(MLIRContext *ctx, int64_t rank) {
  // Built explicitly: getMajorSubMap(0) is a null map, not `(d0) -> ()`,
  // and rank-1 inputs reduce to a rank-0 row.
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i + 1 < rank; ++i)
    exprs.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

Value lowering::buildGeneric(OpBuilder &b, Location loc, Value init,
                             ArrayRef<MappedInput> inputs, AffineMap outMap,
                             ArrayRef<utils::IteratorType> iterators,
                             GenericBody body) {
  SmallVector<Value> values;
  SmallVector<AffineMap> maps;
  for (const MappedInput &input : inputs) {
    values.push_back(input.value);
    maps.push_back(input.map);
  }
  maps.push_back(outMap);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), values, init, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back(), args.back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

Value lowering::buildElementwise(OpBuilder &b, Location loc,
                                 ArrayRef<OpFoldResult> sizes,
                                 ValueRange inputs, StringRef opName,
                                 GenericBody body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<MappedInput> mapped;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    assertBroadcastable(b, loc, input, sizes,
                        "transformer." + opName + ": operand " + Twine(i));
    mapped.push_back(
        {input,
         broadcastMap(ctx, cast<RankedTensorType>(input.getType()), sizes)});
  }
  int64_t rank = sizes.size();
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return buildGeneric(b, loc, emptyTensor(b, loc, sizes), mapped,
                      AffineMap::getMultiDimIdentityMap(rank, ctx), iterators,
                      body);
}

Value lowering::reduceLastDim(OpBuilder &b, Location loc, Value input,
                              ArrayRef<OpFoldResult> sizes, float init,
                              GenericBody combine) {
  int64_t rank = sizes.size();
  Value acc = filledTensor(b, loc, sizes.drop_back(), init);
  // linalg.reduce wants the input dims to be those of the accumulator (the
  // callers have checked the sizes).
  RankedTensorType type = tensorTypeOf(b.getContext(), sizes);
  if (input.getType() != type)
    input = tensor::CastOp::create(b, loc, type, input);
  auto reduce = linalg::ReduceOp::create(
      b, loc, input, acc, {rank - 1},
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        // linalg.reduce's block arguments: the input element, then the
        // accumulator.
        Value result = combine(nested, nestedLoc, args.take_front(), args[1]);
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return reduce.getResult(0);
}

Value lowering::buildContraction(OpBuilder &b, Location loc, Value lhs,
                                 Value rhs, bool transposeB,
                                 InitBuilder makeInit) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = cast<RankedTensorType>(lhs.getType()).getRank();
  int64_t rhsRank = cast<RankedTensorType>(rhs.getType()).getRank();
  int64_t batch = rank - 2;
  bool broadcastRhs = rhsRank != rank;

  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < rank - 1; ++i)
    sizes.push_back(dimSize(b, loc, lhs, i));
  sizes.push_back(dimSize(b, loc, rhs, transposeB ? rhsRank - 2 : rhsRank - 1));
  Value init = makeInit ? makeInit(sizes) : filledTensor(b, loc, sizes, 0.0f);
  Type resultType = init.getType();

  // Loops (batch.., m, n, k).
  int64_t loops = rank + 1;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> lhsExprs, rhsExprs, outExprs;
  for (int64_t i = 0; i < batch; ++i) {
    lhsExprs.push_back(d(i));
    outExprs.push_back(d(i));
    if (!broadcastRhs)
      rhsExprs.push_back(d(i));
  }
  int64_t m = batch, n = batch + 1, k = batch + 2;
  lhsExprs.append({d(m), d(k)});
  if (transposeB)
    rhsExprs.append({d(n), d(k)});
  else
    rhsExprs.append({d(k), d(n)});
  outExprs.append({d(m), d(n)});
  ArrayAttr maps =
      b.getAffineMapArrayAttr({AffineMap::get(loops, 0, lhsExprs, ctx),
                               AffineMap::get(loops, 0, rhsExprs, ctx),
                               AffineMap::get(loops, 0, outExprs, ctx)});

  // linalg.matmul and linalg.batch_matmul where they say it (the transposed
  // rhs through their indexing_maps), linalg.contract for more batch dims
  // or an rhs shared by the batch. (Collapsing the batch dims into one
  // instead would need a memref.expand_shape of an all-dynamic group, which
  // crashes LLVM 22's expand-strided-metadata.)
  Operation *product;
  if (rank == 2)
    product = linalg::MatmulOp::create(b, loc, TypeRange{resultType},
                                       ValueRange{lhs, rhs}, ValueRange{init});
  else if (rank == 3 && !broadcastRhs)
    product = linalg::BatchMatmulOp::create(
        b, loc, TypeRange{resultType}, ValueRange{lhs, rhs}, ValueRange{init});
  else
    return linalg::ContractOp::create(b, loc, TypeRange{resultType},
                                      ValueRange{lhs, rhs}, ValueRange{init},
                                      maps)
        ->getResult(0);
  if (transposeB)
    product->setAttr("indexing_maps", maps);
  return product->getResult(0);
}

Value lowering::buildSoftmax(OpBuilder &b, Location loc, Value input,
                             ArrayRef<OpFoldResult> sizes,
                             bool zeroFullyMasked) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = sizes.size();
  float negInf = -std::numeric_limits<float>::infinity();
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);

  Value max = reduceLastDim(
      b, loc, input, sizes, negInf,
      [](OpBuilder &b, Location loc, ValueRange in, Value acc) -> Value {
        return arith::MaximumFOp::create(b, loc, in[0], acc);
      });
  Value exps = buildGeneric(
      b, loc, emptyTensor(b, loc, sizes),
      {{input, identity}, {max, rowMap(ctx, rank)}}, identity, parallel,
      [&](OpBuilder &b, Location loc, ValueRange in, Value) -> Value {
        Value diff = arith::SubFOp::create(b, loc, in[0], in[1]);
        Value exp = math::ExpOp::create(b, loc, diff);
        if (!zeroFullyMasked)
          return exp;
        Value inf =
            arith::ConstantOp::create(b, loc, b.getF32FloatAttr(negInf));
        Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
        Value masked = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                             in[1], inf);
        return arith::SelectOp::create(b, loc, masked, zero, exp);
      });
  Value sum = reduceLastDim(
      b, loc, exps, sizes, 0.0f,
      [](OpBuilder &b, Location loc, ValueRange in, Value acc) -> Value {
        return arith::AddFOp::create(b, loc, in[0], acc);
      });
  return buildGeneric(
      b, loc, emptyTensor(b, loc, sizes),
      {{exps, identity}, {sum, rowMap(ctx, rank)}}, identity, parallel,
      [&](OpBuilder &b, Location loc, ValueRange in, Value) -> Value {
        Value quotient = arith::DivFOp::create(b, loc, in[0], in[1]);
        if (!zeroFullyMasked)
          return quotient;
        Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
        Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                            in[1], zero);
        return arith::SelectOp::create(b, loc, empty, zero, quotient);
      });
}

Value lowering::castToType(OpBuilder &b, Location loc, Value value,
                           RankedTensorType type, StringRef opName) {
  if (value.getType() == type)
    return value;
  auto from = cast<RankedTensorType>(value.getType());
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (from.isDynamicDim(i) && !type.isDynamicDim(i))
      assertEqualSizes(b, loc, dimSize(b, loc, value, i),
                       b.getIndexAttr(type.getDimSize(i)),
                       "transformer." + opName + ": dimension " + Twine(i) +
                           " of the result does not match its declared type",
                       "size", "declared");
  return tensor::CastOp::create(b, loc, type, value);
}

LogicalResult lowering::checkRankedTypes(Operation *op) {
  for (Type type : llvm::concat<Type>(llvm::to_vector(op->getOperandTypes()),
                                      llvm::to_vector(op->getResultTypes())))
    if (isa<UnrankedTensorType>(type))
      return op->emitOpError()
             << "has an unranked type " << type
             << "; run --transformer-shape-inference before lowering";
  return success();
}

/// Checks at run time that `kvHeads` divides `queryHeads` (grouped-query
/// attention), unless both are static (the verifier has seen them).
static void assertHeadGroups(OpBuilder &b, Location loc,
                             OpFoldResult queryHeads, OpFoldResult kvHeads) {
  if (getConstantIntValue(queryHeads) && getConstantIntValue(kvHeads))
    return;
  Value h = toIndexValue(b, loc, queryHeads);
  Value hkv = toIndexValue(b, loc, kvHeads);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  // A zero Hkv is fine only with zero query heads; remui by 1 keeps the
  // remainder defined.
  Value kvIsZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, hkv, zero);
  Value divisor = arith::SelectOp::create(
      b, loc, kvIsZero, arith::ConstantIndexOp::create(b, loc, 1), hkv);
  Value remainder = arith::RemUIOp::create(b, loc, h, divisor);
  Value divides = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::SelectOp::create(b, loc, kvIsZero, h, remainder), zero);
  emitRuntimeCheck(b, loc, divides,
                   "transformer.attention: the query heads are not a "
                   "multiple of the key and value heads",
                   {{"query heads", h}, {"key heads", hkv}});
}

void lowering::assertAttentionShapes(OpBuilder &b, Location loc, Value q,
                                     Value k, Value v) {
  int64_t rank = cast<RankedTensorType>(q.getType()).getRank();
  auto dim = [&](Value value, int64_t i) { return dimSize(b, loc, value, i); };
  for (int64_t i = 0; i + 2 < rank; ++i) {
    if (rank >= 4 && i + 3 == rank) {
      // The heads: grouped-query attention.
      assertEqualSizes(b, loc, dim(k, i), dim(v, i),
                       "transformer.attention: the heads of key and value "
                       "differ",
                       "key", "value");
      assertHeadGroups(b, loc, dim(q, i), dim(k, i));
      continue;
    }
    assertEqualSizes(b, loc, dim(q, i), dim(k, i),
                     "transformer.attention: batch dimension " + Twine(i) +
                         " of query and key differ",
                     "query", "key");
    assertEqualSizes(b, loc, dim(q, i), dim(v, i),
                     "transformer.attention: batch dimension " + Twine(i) +
                         " of query and value differ",
                     "query", "value");
  }
  assertEqualSizes(b, loc, dim(q, rank - 1), dim(k, rank - 1),
                   "transformer.attention: the head dimensions of query "
                   "and key differ",
                   "query D", "key D");
  assertEqualSizes(b, loc, dim(k, rank - 2), dim(v, rank - 2),
                   "transformer.attention: the sequence lengths of key and "
                   "value differ",
                   "key Sk", "value Sk");
}
