//===- Elementwise.cpp - Lower element-wise transformer ops ---------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

#include "Transformer/IR/TransformerOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::lowering;

namespace {

Value f32Constant(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(static_cast<float>(value)));
}

/// The loop sizes of a broadcasting op with result type `type`: for each
/// dynamic result dim, the size of the first operand that is not a static 1
/// there (a static size is preferred when there is one).
SmallVector<OpFoldResult> broadcastSizes(OpBuilder &b, Location loc,
                                         RankedTensorType type,
                                         ValueRange operands) {
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> candidates(rank, b.getIndexAttr(1));
  SmallVector<bool> found(rank, false);
  for (Value operand : operands) {
    auto operandType = cast<RankedTensorType>(operand.getType());
    int64_t lead = rank - operandType.getRank();
    for (int64_t i = 0; i < operandType.getRank(); ++i) {
      int64_t dim = operandType.getDimSize(i);
      if (dim == 1 || (found[lead + i] && ShapedType::isDynamic(dim)))
        continue;
      if (found[lead + i] && getConstantIntValue(candidates[lead + i]))
        continue;
      candidates[lead + i] = dimSize(b, loc, operand, i);
      found[lead + i] = true;
    }
  }
  return sizesOfType(b, loc, type, candidates);
}

/// Lowers an op with f32 tensor operands and one result computed element by
/// element with numpy broadcasting: a named linalg op (linalg.map, or
/// linalg.add/sub/mul/div for the binary ops) when every operand has the
/// result's shape, a linalg.generic with broadcasting maps otherwise (no
/// named op reads a stretched operand without materialising it).
template <typename OpTy>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  /// Computes one element from the operand elements.
  virtual Value compute(OpTy op, OpBuilder &b, Location loc,
                        ValueRange args) const = 0;

  /// The named op over operands of the result's shape; linalg.map of
  /// compute() unless overridden.
  virtual Value buildNamed(OpTy op, OpBuilder &b, Location loc,
                           ValueRange operands, Value init) const {
    return linalg::MapOp::create(
               b, loc, operands, init,
               [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
                 linalg::YieldOp::create(
                     nested, nestedLoc,
                     compute(op, nested, nestedLoc,
                             args.take_front(operands.size())));
               })
        ->getResult(0);
  }

  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkRankedTypes(op)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    ValueRange operands = adaptor.getOperands();
    SmallVector<OpFoldResult> sizes =
        broadcastSizes(rewriter, loc, type, operands);
    StringRef name = op->getName().stripDialect();
    bool sameShape = llvm::all_of(operands, [&](Value operand) {
      auto operandType = cast<RankedTensorType>(operand.getType());
      return operandType.getRank() == type.getRank() &&
             broadcastMap(ctx, operandType, sizes).isIdentity();
    });
    Value result;
    if (sameShape) {
      RankedTensorType loopType = tensorTypeOf(ctx, sizes);
      SmallVector<Value> typed;
      for (auto [i, operand] : llvm::enumerate(operands)) {
        assertBroadcastable(rewriter, loc, operand, sizes,
                            "transformer." + name + ": operand " + Twine(i));
        typed.push_back(
            operand.getType() == loopType
                ? operand
                : tensor::CastOp::create(rewriter, loc, loopType, operand)
                      .getResult());
      }
      result = buildNamed(op, rewriter, loc, typed,
                          emptyTensor(rewriter, loc, sizes));
    } else {
      result =
          buildElementwise(rewriter, loc, sizes, operands, name,
                           [&](OpBuilder &b, Location loc, ValueRange args,
                               Value) { return compute(op, b, loc, args); });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// add, sub, mul, div: linalg.add/sub/mul/div when the shapes agree.
template <typename OpTy, typename ArithOp, typename NamedOp>
struct BinaryLowering : ElementwiseLowering<OpTy> {
  using ElementwiseLowering<OpTy>::ElementwiseLowering;
  Value compute(OpTy, OpBuilder &b, Location loc,
                ValueRange args) const override {
    return ArithOp::create(b, loc, args[0], args[1]);
  }
  Value buildNamed(OpTy, OpBuilder &b, Location loc, ValueRange operands,
                   Value init) const override {
    return NamedOp::create(b, loc, TypeRange{init.getType()}, operands,
                           ValueRange{init})
        ->getResult(0);
  }
};

struct ScaleLowering : ElementwiseLowering<ScaleOp> {
  using ElementwiseLowering::ElementwiseLowering;
  Value compute(ScaleOp op, OpBuilder &b, Location loc,
                ValueRange args) const override {
    Value factor = arith::ConstantOp::create(b, loc, op.getFactorAttr());
    return arith::MulFOp::create(b, loc, args[0], factor);
  }
};

struct ReluLowering : ElementwiseLowering<ReluOp> {
  using ElementwiseLowering::ElementwiseLowering;
  Value compute(ReluOp, OpBuilder &b, Location loc,
                ValueRange args) const override {
    // maximumf propagates NaN, as torch.relu and numpy.maximum do.
    return arith::MaximumFOp::create(b, loc, args[0], f32Constant(b, loc, 0));
  }
};

struct SiluLowering : ElementwiseLowering<SiluOp> {
  using ElementwiseLowering::ElementwiseLowering;
  Value compute(SiluOp, OpBuilder &b, Location loc,
                ValueRange args) const override {
    // x / (1 + exp(-x)): exp overflows to inf for x < -88, giving -0 as
    // torch's silu does.
    Value x = args[0];
    Value exp = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    Value denom = arith::AddFOp::create(b, loc, f32Constant(b, loc, 1.0), exp);
    return arith::DivFOp::create(b, loc, x, denom);
  }
};

struct GeluLowering : ElementwiseLowering<GeluOp> {
  using ElementwiseLowering::ElementwiseLowering;
  Value compute(GeluOp op, OpBuilder &b, Location loc,
                ValueRange args) const override {
    Value x = args[0];
    Value half = f32Constant(b, loc, 0.5), one = f32Constant(b, loc, 1.0);
    Value inner;
    if (op.getApproximate() == "none") {
      // 0.5 x (1 + erf(x / sqrt(2)))
      Value scaled =
          arith::MulFOp::create(b, loc, x, f32Constant(b, loc, M_SQRT1_2));
      inner = math::ErfOp::create(b, loc, scaled);
    } else {
      // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
      Value x3 =
          arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
      Value poly = arith::AddFOp::create(
          b, loc, x,
          arith::MulFOp::create(b, loc, x3, f32Constant(b, loc, 0.044715)));
      Value arg = arith::MulFOp::create(
          b, loc, poly, f32Constant(b, loc, std::sqrt(2.0 / M_PI)));
      inner = math::TanhOp::create(b, loc, arg);
    }
    Value sum = arith::AddFOp::create(b, loc, one, inner);
    return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, half, x),
                                 sum);
  }
};
} // namespace

void lowering::populateElementwisePatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<BinaryLowering<AddOp, arith::AddFOp, linalg::AddOp>,
               BinaryLowering<SubOp, arith::SubFOp, linalg::SubOp>,
               BinaryLowering<MulOp, arith::MulFOp, linalg::MulOp>,
               BinaryLowering<DivOp, arith::DivFOp, linalg::DivOp>,
               ScaleLowering, ReluLowering, GeluLowering, SiluLowering>(ctx);
}
