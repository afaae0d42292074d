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

/// Refines every interface op of `func` in order. Returns failure after
/// reporting an inconsistency.
LogicalResult refineFunctionBody(func::FuncOp func) {
  WalkResult result = func.walk([&](ShapeInferenceOpInterface op) {
    Value value = op->getResult(0);
    Type before = value.getType();
    bypassLossyCasts(op);
    if (failed(op.inferShapes()))
      return WalkResult::interrupt();
    if (value.getType() == before)
      return WalkResult::advance();
    LLVM_DEBUG(llvm::dbgs() << "refined " << before << " to "
                            << value.getType() << "\n");
    // Other dialects' ops were verified against the old type: give them a
    // cast to it.
    SmallVector<OpOperand *> foreignUses;
    for (OpOperand &use : value.getUses())
      if (!acceptsRefinedOperand(use.getOwner()))
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

/// Every transformer result must be ranked once inference is done.
LogicalResult checkAllRanked(func::FuncOp func) {
  WalkResult result = func.walk([&](ShapeInferenceOpInterface op) {
    Type type = op->getResult(0).getType();
    if (isa<RankedTensorType>(type))
      return WalkResult::advance();
    op->emitOpError() << "could not infer a ranked type for the result "
                      << "(still " << type
                      << "): an operand is unranked; give the function "
                         "ranked argument types";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// Updates the result types of `func` from its returns when nothing calls it;
/// otherwise casts the returned values back to the declared types.
void updateSignature(func::FuncOp func, ModuleOp module) {
  if (func.isExternal())
    return;
  auto returnOp = cast<func::ReturnOp>(func.getBody().back().getTerminator());
  TypeRange declared = func.getResultTypes();
  if (TypeRange(returnOp.getOperandTypes()) == declared)
    return;
  if (SymbolTable::symbolKnownUseEmpty(func, module)) {
    func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                   returnOp.getOperandTypes()));
    return;
  }
  OpBuilder builder(returnOp);
  for (auto [operand, type] : llvm::zip(returnOp->getOpOperands(), declared))
    if (operand.get().getType() != type)
      operand.set(tensor::CastOp::create(builder, returnOp.getLoc(), type,
                                         operand.get()));
}

struct TransformerShapeInferencePass
    : transformer::impl::TransformerShapeInferencePassBase<TransformerShapeInferencePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (failed(refineFunctionBody(func)) || failed(checkAllRanked(func)))
        return signalPassFailure();
      // Multi-block functions return from several blocks; only the common
      // single-block case has its signature refined.
      if (func.getBody().hasOneBlock())
        updateSignature(func, module);
    }
  }
};
} // namespace
