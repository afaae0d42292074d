//===- ShapeInference.cpp - --transformer-shape-inference -----------------===//
//
// Refines result types through ShapeInferenceOpInterface, in the manner of the
// Toy tutorial's ShapeInferencePass, but without assuming that every op of a
// function belongs to the dialect: refined values that reach other ops are
// cast back to the type those ops were written against.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Transforms/Passes.h"

#include "Transformer/IR/TransformerOps.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "transformer-shape-inference"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERSHAPEINFERENCEPASS
#include "Transformer/Transforms/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

namespace {

/// Whether a user may see the refined type of its operand directly: ops of
/// the dialect re-infer from it, and func.return is handled with the
/// function signature.
bool acceptsRefinedOperand(Operation *user) {
  return isa<ShapeInferenceOpInterface, func::ReturnOp>(user);
}

/// Replaces operands that are tensor.casts of a more precise value by that
/// value (inlining leaves such casts at call boundaries): transformer ops
/// accept any compatible type, and the precise one lets inference proceed.
void bypassLossyCasts(Operation *op) {
  for (OpOperand &operand : op->getOpOperands()) {
    auto cast = operand.get().getDefiningOp<tensor::CastOp>();
    if (!cast)
      continue;
    auto source = dyn_cast<TensorType>(cast.getSource().getType());
    auto result = dyn_cast<TensorType>(cast.getType());
    if (source && result && meetTensorTypes(source, result) == source)
      operand.set(cast.getSource());
  }
}

/// Refines every interface op under `root` (functions, nested modules, any
/// region) in order. Returns failure after reporting an inconsistency.
LogicalResult refineAll(Operation *root) {
  WalkResult result = root->walk([&](ShapeInferenceOpInterface op) {
    Value value = op->getResult(0);
    Type before = value.getType();
    bypassLossyCasts(op);
    if (failed(op.inferShapes()))
      return WalkResult::interrupt();
    if (value.getType() == before)
      return WalkResult::advance();
    LLVM_DEBUG(llvm::dbgs()
               << "refined " << before << " to " << value.getType() << "\n");
    // Other dialects' ops were verified against the old type: give them a
    // cast to it. A tensor.cast user takes the refined value directly
    // (casts accept any compatible type), so no unranked cast is left.
    SmallVector<OpOperand *> foreignUses;
    for (OpOperand &use : value.getUses())
      if (!acceptsRefinedOperand(use.getOwner()) &&
          !isa<tensor::CastOp>(use.getOwner()))
        foreignUses.push_back(&use);
    if (foreignUses.empty())
      return WalkResult::advance();
    OpBuilder builder(op->getContext());
    builder.setInsertionPointAfter(op);
    Value cast = tensor::CastOp::create(builder, op->getLoc(), before, value);
    for (OpOperand *use : foreignUses)
      use->set(cast);
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// No transformer op's result, and no value a transformer op reads, may stay
/// unranked once inference is done: their lowering needs ranks. Other
/// dialects' ops may produce unranked tensors (`tensor.cast` to
/// `tensor<*xf32>` before a call of `printMemrefF32`): they bufferize to
/// unranked memrefs.
LogicalResult checkAllRanked(Operation *root) {
  WalkResult result =
      root->walk([&](Operation *op) {
        for (OpResult value : op->getResults()) {
          Type type = value.getType();
          if (!isa<UnrankedTensorType>(type))
            continue;
          bool inferred = isa<ShapeInferenceOpInterface>(op);
          if (!inferred && llvm::none_of(value.getUsers(), [](Operation *user) {
                return isa<ShapeInferenceOpInterface>(user);
              }))
            continue;
          if (inferred)
            op->emitOpError() << "could not infer a ranked type for the result "
                              << "(still " << type
                              << "): an operand is unranked; give the function "
                                 "ranked argument types";
          else
            op->emitOpError()
                << "result #" << value.getResultNumber()
                << " is still unranked (" << type
                << ") after shape inference; give it a ranked type"
                << (isa<CallOpInterface>(op) ? " or run --inline first" : "");
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
  return failure(result.wasInterrupted());
}

/// Updates the result types of `func` from its returns when nothing calls it;
/// otherwise casts the returned values back to the declared types, which
/// must then be ranked.
LogicalResult updateSignature(func::FuncOp func) {
  if (func.isExternal())
    return success();
  auto returnOp = cast<func::ReturnOp>(func.getBody().back().getTerminator());
  TypeRange declared = func.getResultTypes();
  if (TypeRange(returnOp.getOperandTypes()) == declared)
    return success();
  Operation *symbolTable = SymbolTable::getNearestSymbolTable(func);
  if (symbolTable && SymbolTable::symbolKnownUseEmpty(func, symbolTable)) {
    func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                   returnOp.getOperandTypes()));
    return success();
  }
  for (Type type : declared)
    if (isa<UnrankedTensorType>(type))
      return func.emitOpError()
             << "is called, so its unranked result type " << type
             << " cannot be refined; run --inline before "
                "--transformer-shape-inference or declare a ranked type";
  OpBuilder builder(returnOp);
  for (auto [operand, type] : llvm::zip(returnOp->getOpOperands(), declared))
    if (operand.get().getType() != type)
      operand.set(tensor::CastOp::create(builder, returnOp.getLoc(), type,
                                         operand.get()));
  return success();
}

struct TransformerShapeInferencePass
    : transformer::impl::TransformerShapeInferencePassBase<
          TransformerShapeInferencePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(refineAll(module)))
      return signalPassFailure();
    // Multi-block functions return from several blocks; only the common
    // single-block case has its signature refined.
    WalkResult signatures = module.walk([](func::FuncOp func) {
      if (!func.getBody().hasOneBlock())
        return WalkResult::advance();
      return failed(updateSignature(func)) ? WalkResult::interrupt()
                                           : WalkResult::advance();
    });
    if (signatures.wasInterrupted() || failed(checkAllRanked(module)))
      return signalPassFailure();
  }
};
} // namespace
