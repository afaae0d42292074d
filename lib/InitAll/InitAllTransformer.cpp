//===- InitAllTransformer.cpp - Register the whole project ----------------===//

#include "Transformer/InitAllTransformer.h"

#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/Codegen/Common/Passes.h"
#include "Transformer/Conversion/Passes.h"
#include "Transformer/IR/TransformerDialect.h"
#include "Transformer/Pipelines/Pipelines.h"
#include "Transformer/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void transformer::registerAllTransformerDialects(DialectRegistry &registry) {
  registry.insert<TransformerDialect>();
}

void transformer::registerTransformerPipelineDependencies(
    DialectRegistry &registry) {
  // The dialects of the contract (docs/Design.md) and the ones the pipeline
  // lowers through.
  registry
      .insert<arith::ArithDialect, bufferization::BufferizationDialect,
              cf::ControlFlowDialect, func::FuncDialect, linalg::LinalgDialect,
              LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
              scf::SCFDialect, tensor::TensorDialect, vector::VectorDialect>();

  // One-shot bufferization (`bufferizable` ops of each dialect).
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  cf::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  // Vector code written on tensors (the contraction prep's dot-product form).
  vector::registerBufferizableOpInterfaceExternalModels(registry);

  // The ownership-based buffer deallocation pipeline.
  arith::registerBufferDeallocationOpInterfaceExternalModels(registry);
  cf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  scf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  memref::registerAllocationOpInterfaceExternalModels(registry);
}

void transformer::registerAllTransformer(DialectRegistry &registry) {
  registerAllTransformerDialects(registry);
  registerTransformerPipelineDependencies(registry);
}

void transformer::registerAllTransformerPasses() {
  registerTransformerPasses();
  registerTransformerCodegenCommonPasses();
  registerTransformerConversionPasses();
  registerTransformerCodegenCPUPasses();
  PassPipelineRegistration<>(
      "convert-transformer-to-linalg", "Alias of --lower-transformer",
      [](OpPassManager &pm) {
        pm.addPass(createConvertTransformerToLinalgPass());
      });
  registerTransformerPipelines();
}
