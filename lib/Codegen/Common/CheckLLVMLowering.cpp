//===- CheckLLVMLowering.cpp - --transformer-check-llvm-lowering ----------===//
//
// Reports an op that did not lower to the LLVM dialect with the type that
// stopped it, before the translation to LLVM IR would fail on it.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/Common/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERCHECKLLVMLOWERINGPASS
#include "Transformer/Codegen/Common/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;

namespace {
/// The first operand or result type of `op` whose element type LLVM has no
/// type for (f8E4M3FN, ...); index and the vectors, memrefs and tensors of
/// supported types are not the problem.
Type findUnsupportedType(Operation *op) {
  for (TypeRange types :
       {TypeRange(op->getOperandTypes()), TypeRange(op->getResultTypes())})
    for (Type type : types) {
      Type element = getElementTypeOrSelf(type);
      if (!isa<IndexType>(element) && !LLVM::isCompatibleType(element))
        return type;
    }
  return {};
}

/// The op a conversion cast stands in for: the user or producer of the side
/// whose type did not convert, when it is still there.
Operation *findOriginalOp(UnrealizedConversionCastOp cast) {
  for (Value input : cast.getInputs())
    if (Operation *def = input.getDefiningOp())
      if (!isa<LLVM::LLVMDialect>(def->getDialect()) &&
          !isa<UnrealizedConversionCastOp>(def))
        return def;
  for (Operation *user : cast->getUsers())
    if (!isa<LLVM::LLVMDialect>(user->getDialect()) &&
        !isa<UnrealizedConversionCastOp>(user))
      return user;
  return cast;
}

struct TransformerCheckLLVMLoweringPass
    : transformer::impl::TransformerCheckLLVMLoweringPassBase<
          TransformerCheckLLVMLoweringPass> {
  void runOnOperation() override {
    WalkResult result = getOperation()->walk([](Operation *op) {
      Dialect *dialect = op->getDialect();
      if (isa<ModuleOp>(op) ||
          isa_and_nonnull<LLVM::LLVMDialect, omp::OpenMPDialect>(dialect))
        return WalkResult::advance();
      Operation *culprit = op;
      if (auto cast = dyn_cast<UnrealizedConversionCastOp>(op))
        culprit = findOriginalOp(cast);
      Type type = findUnsupportedType(op);
      if (!type)
        type = findUnsupportedType(culprit);
      InFlightDiagnostic diag = culprit->emitOpError("has no lowering to LLVM");
      if (type) {
        diag << " for type " << type;
        Type element = getElementTypeOrSelf(type);
        if (element != type)
          diag << ": its element type " << element << " is not supported";
      }
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
