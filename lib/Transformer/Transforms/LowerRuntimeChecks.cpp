//===- LowerRuntimeChecks.cpp - --transformer-lower-runtime-checks --------===//
//
// The lowering emits each run-time check as
//
//   scf.if %failed {
//     vector.print str " (lhs K = "   // text and values of the message
//     vector.print %lhs : i64
//     ...
//     cf.assert %false, "transformer.matmul: ..."
//   } {transformer.runtime_check}
//
// (or a bare cf.assert when no value is shown), which is correct on its own.
// This pass turns each into one call of the runtime library's
// `transformerRuntimeError(format, values...)`, so that the message, values
// included, reaches the runner as one string and nothing else (puts, abort,
// printI64) has to be taken over. A user's own vector.print is untouched.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERLOWERRUNTIMECHECKSPASS
#include "Transformer/Transforms/Passes.h.inc"
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
    SmallVector<scf::IfOp> checks;
    module.walk([&](scf::IfOp op) {
      if (op->hasAttr(kCheckMarker))
        checks.push_back(op);
    });
    for (scf::IfOp check : checks)
      if (failed(lowerMarkedCheck(check)))
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

  /// Replaces the body of a marked scf.if with one call of the runtime.
  LogicalResult lowerMarkedCheck(scf::IfOp check) {
    Block *body = check.thenBlock();
    std::string message, values;
    SmallVector<Value> operands;
    for (Operation &op : body->without_terminator()) {
      if (auto print = dyn_cast<vector::PrintOp>(op)) {
        if (std::optional<StringRef> text = print.getStringLiteral()) {
          values += escapeFormat(*text);
          continue;
        }
        Value value = print.getSource();
        auto intType = value ? dyn_cast<IntegerType>(value.getType()) : nullptr;
        if (!intType || intType.getWidth() > 64)
          return check.emitError("unexpected value in a run-time check");
        values += "%lld";
        operands.push_back(value);
      } else if (auto assertOp = dyn_cast<cf::AssertOp>(op)) {
        message = escapeFormat(assertOp.getMsg());
      }
    }
    // Keep the ops that compute the values (index casts); drop the prints
    // and the assert.
    OpBuilder b(body->getTerminator());
    Location loc = check.getLoc();
    for (Value &value : operands)
      if (value.getType().getIntOrFloatBitWidth() < 64)
        value = arith::ExtSIOp::create(b, loc, b.getI64Type(), value);
    if (failed(emitCall(b, loc, message + values, operands)))
      return failure();
    for (Operation &op : llvm::make_early_inc_range(*body))
      if (isa<vector::PrintOp, cf::AssertOp>(op))
        op.erase();
    check->removeAttr(kCheckMarker);
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
