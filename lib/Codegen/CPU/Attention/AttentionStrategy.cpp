//===- AttentionStrategy.cpp - The attention family's passes --------------===//

#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/Codegen/CPU/Strategies.h"

using namespace mlir;
using namespace mlir::transformer;

void transformer::addAttentionStrategy(OpPassManager &pm,
                                       const CPUTarget &target) {
  pm.addPass(createTransformerMaskSparsityPass());
  TransformerCPUFlashAttentionPassOptions flash;
  flash.threads = target.threads;
  pm.addPass(createTransformerCPUFlashAttentionPass(flash));
  // Unfused chains: masked_softmax and P @ V skip their masked blocks.
  pm.addPass(createTransformerCPUSparseChainsPass());
}
