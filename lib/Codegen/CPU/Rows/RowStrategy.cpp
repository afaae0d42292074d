//===- RowStrategy.cpp - The row family's passes --------------------------===//

#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/Codegen/CPU/Strategies.h"

using namespace mlir;
using namespace mlir::transformer;

void transformer::addRowFusion(OpPassManager &pm) {
  // softmax and layer_norm: their reductions and element-wise ops one tile
  // of rows at a time, as one kernel.
  pm.addNestedPass<func::FuncOp>(createTransformerCPUFuseRowChainsPass());
}

void transformer::addRowStrategy(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createTransformerCPUVectorizeRowsPass());
}
