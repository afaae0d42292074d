//===- ContractionStrategy.cpp - The contraction family's passes ----------===//

#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/Codegen/CPU/Strategies.h"

#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::transformer;

void transformer::addContractionPreparation(OpPassManager &pm,
                                            bool panelParameters) {
  if (panelParameters)
    pm.addPass(createTransformerCPUPanelParametersPass());
  // Before outlining: the reshapes and pads that normalize a contraction
  // stay in the caller, so that the kernel's accumulator buffer has no other
  // use and its register tile can be hoisted out of the k loop.
  pm.addNestedPass<func::FuncOp>(createTransformerCPUPrepareContractionsPass());
  // What the prepare pass made of a loop-invariant operand (the transposed
  // copy of a weight, a pad) leaves the loop: in a generation loop the LM
  // head's transposed embedding table is made once, not once per token.
  pm.addPass(createLoopInvariantCodeMotionPass());
  // ... and the transposed copy of a weight that is the same on every call
  // is made on the first call only.
  pm.addPass(createTransformerCPUCacheConstantWeightsPass());
}

void transformer::addEpilogueFusion(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createTransformerCPUFuseEpiloguesPass());
  // The cache tiles of contractions that read a weight copied in panels
  // read the panels as they are.
  pm.addNestedPass<func::FuncOp>(createTransformerCPUPanelContractionsPass());
}

void transformer::addContractionStrategy(OpPassManager &pm,
                                         llvm::StringRef schedule) {
  TransformerCPUCodegenPassOptions codegen;
  codegen.schedule = schedule.str();
  pm.addPass(createTransformerCPUCodegenPass(codegen));
  pm.addPass(createTransformerCPUPrefetchNextKBlockPass());
  pm.addPass(createTransformerCPUPrefetchNextRowsPass());
}
