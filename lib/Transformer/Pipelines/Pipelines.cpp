//===- Pipelines.cpp - The transformer compilation pipelines --------------===//

#include "Transformer/Pipelines/Pipelines.h"

#include "Transformer/Conversion/Passes.h"
#include "Transformer/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::transformer;

void transformer::buildTransformerToLinalgPipeline(
    OpPassManager &pm, const TransformerPipelineOptions &opts) {
  pm.addPass(createTransformerShapeInferencePass());
  pm.addPass(createCanonicalizerPass());
  if (opts.optLevel >= 1 && opts.fuseAttention)
    pm.addNestedPass<func::FuncOp>(createTransformerFuseAttentionPass());
  pm.addPass(createConvertTransformerToLinalgPass());
  // Element-wise arith/math ops on tensors, which programs may mix with the
  // dialect, have no bufferization: make them linalg.generic ops.
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void transformer::buildLinalgToLLVMPipeline(
    OpPassManager &pm, const TransformerPipelineOptions &opts) {
  if (opts.optLevel >= 1) {
    pm.addNestedPass<func::FuncOp>(createTransformerFuseElementwisePass());
    // One function per distinct kernel: layers share their code.
    pm.addPass(createTransformerOutlineKernelsPass());
  }

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // Identity layouts at function boundaries: callers (and transformer-run)
  // pass plain contiguous buffers, and no memrefCopy runtime is needed.
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // A loop-carried tensor updated by an op that needs a new buffer (a decode
  // loop over transformer ops) yields a fresh allocation each iteration.
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Kernels write into buffers their callers allocate (outline-kernels).
  if (opts.optLevel >= 1)
    pm.addPass(bufferization::createDropEquivalentBufferResultsPass());
  // Returned buffers are owned by the caller: ones that alias an argument or
  // a constant are cloned, and the clones become alloc + copy.
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());

  // Strided copies would call the memrefCopy runtime function otherwise.
  pm.addNestedPass<func::FuncOp>(createTransformerLowerStridedCopiesPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Failed run-time checks call the runtime library (transformerRuntimeError).
  pm.addPass(createTransformerLowerRuntimeChecksPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  // What math-to-llvm leaves (erf, tanh, ...) becomes libm calls.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void transformer::buildTransformerToLLVMPipeline(
    OpPassManager &pm, const TransformerPipelineOptions &opts) {
  buildTransformerToLinalgPipeline(pm, opts);
  buildLinalgToLLVMPipeline(pm, opts);
}

void transformer::registerTransformerPipelines() {
  PassPipelineRegistration<TransformerPipelineOptions>(
      "transformer-to-linalg-pipeline",
      "Shape inference, canonicalization, attention fusion and lowering to "
      "linalg on tensors",
      buildTransformerToLinalgPipeline);
  PassPipelineRegistration<TransformerPipelineOptions>(
      "transformer-to-llvm",
      "Compile the transformer dialect (mixed with upstream tensor-level "
      "dialects) down to the LLVM dialect",
      buildTransformerToLLVMPipeline);
}
