//===- LowerRuntimeChecks.cpp - --transformer-lower-runtime-checks --------===//
//
// The lowering emits each run-time check as
//
//   scf.if %failed {
//     vector.print str " (lhs K = "   // text and values of the message
//     vector.print %lhs : i64
//     ...
//     cf.assert %false, "transformer.matmul: ..." {transformer.runtime_check}
//   }
//
// (or a bare cf.assert when no value is shown), which is correct on its own.
// This pass turns each into one call of the runtime library's
// `transformerRuntimeError(format, values...)`, so that the message, values
// included, reaches the runner as one string and nothing else (puts, abort,
// printI64) has to be taken over. A user's own vector.print is untouched.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/Common/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERLOWERRUNTIMECHECKSPASS
#include "Transformer/Codegen/Common/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kRuntimeError = "transformerRuntimeError";
constexpr llvm::StringLiteral kCheckMarker = "transformer.runtime_check";

/// Escapes `%` for the printf-style format of transformerRuntimeError.
std::string escapeFormat(StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '%')
      out += '%';
    if (c != '\n')
      out += c;
  }
  return out;
}

struct TransformerLowerRuntimeChecksPass
    : transformer::impl::TransformerLowerRuntimeChecksPassBase<
          TransformerLowerRuntimeChecksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<cf::AssertOp> checks;
    module.walk([&](cf::AssertOp op) {
      if (op->hasAttr(kCheckMarker))
        checks.push_back(op);
    });
    for (cf::AssertOp check : checks)
      if (failed(lowerMarkedAssert(check)))
        return signalPassFailure();
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp op) { asserts.push_back(op); });
    for (cf::AssertOp op : asserts)
      if (failed(lowerAssert(op)))
        return signalPassFailure();
  }

  /// The declaration `llvm.func @transformerRuntimeError(!llvm.ptr, ...)`.
  FailureOr<LLVM::LLVMFuncOp> getRuntimeError(Location loc) {
    ModuleOp module = getOperation();
    Operation *existing = module.lookupSymbol(kRuntimeError);
    if (auto func = dyn_cast_or_null<LLVM::LLVMFuncOp>(existing))
      return func;
    if (existing)
      return emitError(existing->getLoc())
             << "@" << kRuntimeError
             << " is reserved for the transformer runtime library";
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    MLIRContext *ctx = module.getContext();
    auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                            {LLVM::LLVMPointerType::get(ctx)},
                                            /*isVarArg=*/true);
    return LLVM::LLVMFuncOp::create(b, loc, kRuntimeError, type);
  }

  /// Emits, at `b`'s insertion point, the call reporting `format` with
  /// `values` (i64 each).
  LogicalResult emitCall(OpBuilder &b, Location loc, StringRef format,
                         ValueRange values) {
    FailureOr<LLVM::LLVMFuncOp> callee = getRuntimeError(loc);
    if (failed(callee))
      return failure();
    std::string name;
    ModuleOp module = getOperation();
    do {
      name = ("__transformer_check_message_" + Twine(nextMessage++)).str();
    } while (module.lookupSymbol(name));
    std::string text = format.str();
    text.push_back('\0');
    Value message =
        LLVM::createGlobalString(loc, b, name, text, LLVM::Linkage::Internal);
    SmallVector<Value> args{message};
    args.append(values.begin(), values.end());
    LLVM::CallOp::create(b, loc, *callee, args);
    return success();
  }

  /// Replaces a marked assert and the vector.prints that precede it in its
  /// block (back to the previous marked assert) with one call of the
  /// runtime. The marker is on the assert, not on its scf.if: the
  /// canonicalizer merges consecutive scf.ifs on the same condition (two
  /// checks of one dimension) into one that has no attributes, but the
  /// ops it moves keep theirs.
  LogicalResult lowerMarkedAssert(cf::AssertOp assertOp) {
    SmallVector<vector::PrintOp> prints;
    for (Operation *op = assertOp->getPrevNode(); op; op = op->getPrevNode()) {
      if (op->hasAttr(kCheckMarker))
        break;
      if (auto print = dyn_cast<vector::PrintOp>(op))
        prints.push_back(print);
    }
    std::string values;
    SmallVector<Value> operands;
    OpBuilder b(assertOp);
    Location loc = assertOp.getLoc();
    for (vector::PrintOp print : llvm::reverse(prints)) {
      if (std::optional<StringRef> text = print.getStringLiteral()) {
        values += escapeFormat(*text);
        continue;
      }
      Value value = print.getSource();
      auto intType = value ? dyn_cast<IntegerType>(value.getType()) : nullptr;
      if (!intType || intType.getWidth() > 64)
        return assertOp.emitError("unexpected value in a run-time check");
      values += "%lld";
      if (intType.getWidth() < 64)
        value = arith::ExtSIOp::create(b, loc, b.getI64Type(), value);
      operands.push_back(value);
    }
    // Guarded by its scf.if, the assert's condition is a constant false;
    // otherwise the call gets a guard of its own.
    if (!matchPattern(assertOp.getArg(), m_Zero())) {
      Value failed = arith::XOrIOp::create(
          b, loc, assertOp.getArg(),
          arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
      auto ifOp = scf::IfOp::create(b, loc, failed, /*withElseRegion=*/false);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    if (mlir::failed(emitCall(b, loc, escapeFormat(assertOp.getMsg()) + values,
                              operands)))
      return failure();
    for (vector::PrintOp print : prints)
      print.erase();
    assertOp.erase();
    return success();
  }

  /// `cf.assert %ok, "msg"` -> `scf.if !%ok { call runtime("msg") }`.
  LogicalResult lowerAssert(cf::AssertOp op) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value failed = arith::XOrIOp::create(
        b, loc, op.getArg(),
        arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
    auto ifOp = scf::IfOp::create(b, loc, failed, /*withElseRegion=*/false);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    if (mlir::failed(emitCall(b, loc, escapeFormat(op.getMsg()), {})))
      return failure();
    op.erase();
    return success();
  }

  unsigned nextMessage = 0;
};
} // namespace
