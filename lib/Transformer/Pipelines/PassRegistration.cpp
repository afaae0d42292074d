//===- PassRegistration.cpp - Register the transformer passes -------------===//

#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/Pipelines/Pipelines.h"
#include "Transformer/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void transformer::registerAllTransformerPasses() {
  registerTransformerPasses();
  registerTransformerCodegenCPUPasses();
  PassPipelineRegistration<>(
      "convert-transformer-to-linalg", "Alias of --lower-transformer",
      [](OpPassManager &pm) {
        pm.addPass(createConvertTransformerToLinalgPass());
      });
  registerTransformerPipelines();
}
