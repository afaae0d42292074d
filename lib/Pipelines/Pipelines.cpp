//===- Pipelines.cpp - The transformer compilation pipelines --------------===//

#include "Transformer/Pipelines/Pipelines.h"

#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/Codegen/CPU/Strategies.h"
#include "Transformer/Codegen/CPU/Target/CPUTarget.h"
#include "Transformer/Codegen/Common/Passes.h"
#include "Transformer/Conversion/Passes.h"
#include "Transformer/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <thread>

using namespace mlir;
using namespace mlir::transformer;

namespace {
/// Decomposes linalg ops that are aggregates of simpler ones (linalg.softmax,
/// which a program may use next to the dialect) through their
/// AggregatedOpInterface: linalg-to-loops does not lower them. Part of the
/// pipeline only; upstream has the decomposition but no pass for it.
struct DecomposeAggregatedOpsPass
    : PassWrapper<DecomposeAggregatedOpsPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DecomposeAggregatedOpsPass)
  StringRef getArgument() const override {
    return "transformer-decompose-aggregated-ops";
  }
  StringRef getDescription() const override {
    return "Decompose linalg aggregated ops (linalg.softmax)";
  }
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> ops;
    getOperation()->walk(
        [&](linalg::AggregatedOpInterface op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::AggregatedOpInterface op : ops) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> values = op.decomposeOperation(rewriter);
      if (failed(values)) {
        op->emitOpError("could not be decomposed into simpler linalg ops");
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *values);
    }
  }
};

} // namespace

std::optional<std::string>
transformer::checkPipelineOptions(const TransformerPipelineOptions &opts) {
  if (opts.optLevel > kMaxOptLevel)
    return "opt-level must be 0 to " + std::to_string(kMaxOptLevel) + ", got " +
           std::to_string(opts.optLevel);
  llvm::Expected<CPUTarget> target =
      CPUTarget::resolve(opts.targetCpu, opts.targetFeatures, opts.threads);
  if (!target)
    return llvm::toString(target.takeError());
  return std::nullopt;
}

/// The target CPU of the -O2 code generation, resolved once per pipeline
/// from the options and handed to the op families' strategies
/// (lib/Codegen/CPU). Options that do not resolve (a builder called without
/// checkPipelineOptions) leave the resolution, and its error, to the
/// select-target pass when the pipeline runs.
static std::optional<CPUTarget>
selectTarget(OpPassManager &pm, const TransformerPipelineOptions &opts) {
  llvm::Expected<CPUTarget> target = CPUTarget::resolve(
      opts.targetCpu, opts.targetFeatures, getEffectiveThreads(opts));
  if (!target) {
    llvm::consumeError(target.takeError());
    TransformerCPUSelectTargetPassOptions select;
    select.cpu = opts.targetCpu;
    select.features = opts.targetFeatures;
    select.threads = getEffectiveThreads(opts);
    pm.addPass(createTransformerCPUSelectTargetPass(select));
    return std::nullopt;
  }
  addSelectTarget(pm, *target);
  return *target;
}

void transformer::buildTransformerToLinalgPipeline(
    OpPassManager &pm, const TransformerPipelineOptions &opts) {
  // A transform script the program carries, applied as upstream's test
  // pipelines apply it (--transform-interpreter), and removed.
  pm.addPass(createTransformerApplyEmbeddedSchedulePass());
  // The program's own upstream ops, checked where they were written (the
  // transformer ops' lowering checks its own operands).
  if (opts.optLevel == 0 || opts.runtimeVerification)
    pm.addPass(createTransformerGenerateRuntimeChecksPass());
  pm.addPass(createTransformerShapeInferencePass());
  pm.addPass(createCanonicalizerPass());
  if (opts.optLevel >= 1 && opts.fuseAttention)
    pm.addNestedPass<func::FuncOp>(createTransformerFuseAttentionPass());
  // -O2 and up: attention as a flash kernel (lib/Codegen/CPU).
  if (opts.optLevel >= 2) {
    if (std::optional<CPUTarget> target = selectTarget(pm, opts))
      addAttentionStrategy(pm, *target);
    else
      return;
  }
  pm.addPass(createConvertTransformerToLinalgPass());
  // Element-wise arith/math ops on tensors, which programs may mix with the
  // dialect, have no bufferization: make them linalg.generic ops.
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(std::make_unique<DecomposeAggregatedOpsPass>());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

unsigned
transformer::getEffectiveThreads(const TransformerPipelineOptions &opts) {
  if (opts.threads > 0)
    return opts.threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

/// The schedule's scf.forall (cache tiles) runs on OpenMP threads, or
/// becomes a plain loop nest with one thread.
static void addThreading(OpPassManager &pm,
                         const TransformerPipelineOptions &opts) {
  unsigned threads = getEffectiveThreads(opts);
  if (threads <= 1) {
    pm.addNestedPass<func::FuncOp>(createForallToForLoopPass());
    return;
  }
  pm.addNestedPass<func::FuncOp>(createTransformerStackTaskTemporariesPass());
  pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  ConvertSCFToOpenMPPassOptions omp;
  omp.numThreads = threads;
  pm.addPass(createConvertSCFToOpenMPPass(omp));
}

void transformer::buildLinalgToLLVMPipeline(
    OpPassManager &pm, const TransformerPipelineOptions &opts) {
  if (opts.optLevel >= 1) {
    // The lowering's named ops (linalg.map, add, matmul, ...) as generics,
    // which is what element-wise fusion fuses.
    pm.addNestedPass<func::FuncOp>(createLinalgGeneralizeNamedOpsPass());
    pm.addNestedPass<func::FuncOp>(createTransformerFuseElementwisePass());
  }
  bool codegen = opts.optLevel >= 2;
  if (codegen) {
    if (!selectTarget(pm, opts))
      return;
    addContractionPreparation(pm, opts.panelParameters);
    addRowFusion(pm);
  }
  if (opts.optLevel >= 1)
    // One function per distinct kernel: layers share their code.
    pm.addPass(createTransformerOutlineKernelsPass());
  // In each kernel, the element-wise ops after a contraction are fused into
  // its cache tiles.
  if (codegen)
    addEpilogueFusion(pm);

  // MLIR 22 crashes on the bufferized form of an expand_shape group with
  // several dynamic sizes: those become tensor.reshape.
  pm.addNestedPass<func::FuncOp>(
      createTransformerReshapeMultiDynamicExpandsPass());

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
  // a constant are cloned, and the clones become alloc + copy. Functions
  // that free memory themselves (memref.dealloc) are left as written.
  pm.addPass(createTransformerBufferDeallocationPass());
  // ... except arguments marked transformer.in_place (a decode step's KV
  // cache), returned as they are.
  pm.addPass(createTransformerReturnInPlaceArgumentsPass());
  pm.addPass(createConvertBufferizationToMemRefPass());

  // Strided copies would call the memrefCopy runtime function otherwise.
  pm.addNestedPass<func::FuncOp>(createTransformerLowerStridedCopiesPass());
  if (codegen) {
    addContractionStrategy(pm, opts.transformSchedule);
    addRowStrategy(pm);
  }
  // At every level, for the codegen's vectors and the program's own: what
  // convert-vector-to-llvm does not take. vector.mask and
  // vector.multi_reduction first; then vector transfers and n-D
  // vector.print as loops. Without full unrolling, transfers of 2-D vectors
  // go through a stack buffer and scalar loops inside the innermost loop.
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMaskPass());
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMultiReductionPass());
  VectorTransferToSCFOptions vectorToSCF;
  vectorToSCF.enableFullUnroll(true);
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(vectorToSCF));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  if (codegen)
    addThreading(pm, opts);
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Failed run-time checks call the runtime library (transformerRuntimeError).
  pm.addPass(createTransformerLowerRuntimeChecksPass());
  // The OpenMP regions' memref.alloca_scope must be lowered while they still
  // hold one block, i.e. before scf-to-cf.
  if (codegen)
    pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  // Ops LLVM has no instruction for (ceildivsi, ...) and the float types it
  // has no type for (f4E2M1FN, f8E8M0FNU), as integer arithmetic; so are
  // bf16 conversions, which LLVM would otherwise turn into calls of
  // compiler-rt's __truncsfbf2 (not in the JIT's process) and, for extf,
  // into the same shift this writes.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  expand.includeF4E2M1 = true;
  expand.includeF8E8M0 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createSCFToControlFlowPass());
  // Row reductions (vector.reduction) may reassociate: a tree of vector
  // adds instead of one add per element.
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.reassociateFPReductions = codegen;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  pm.addPass(createConvertMathToLLVMPass());
  // What math-to-llvm leaves (erf, tanh, ...) becomes libm calls.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  // After func-to-llvm: it would otherwise convert func.func itself. The
  // flash kernels make their omp.parallel themselves (with an `if` clause),
  // so it runs whenever the CPU codegen does.
  if (codegen)
    pm.addPass(createConvertOpenMPToLLVMPass());
  // Vector lowering leaves ub.poison behind.
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // The weight cache's copies, allocated when first made rather than
  // zero-filled when the module is loaded.
  if (codegen)
    pm.addPass(createTransformerCPUAllocateWeightCachePass());
  pm.addPass(createTransformerHalfFloatMemoryAsIntegersPass());
  pm.addPass(createCanonicalizerPass());
  // Anything left names its type here, not in the translation to LLVM IR.
  pm.addPass(createTransformerCheckLLVMLoweringPass());
}

void transformer::buildTransformerToLLVMPipeline(
    OpPassManager &pm, const TransformerPipelineOptions &opts) {
  buildTransformerToLinalgPipeline(pm, opts);
  buildLinalgToLLVMPipeline(pm, opts);
}

/// Registers `name` with options checked by checkPipelineOptions, so that
/// `transformer-to-llvm{opt-level=7}` is an error, not a silent -O3.
static void registerPipeline(
    StringRef name, StringRef description,
    void (*build)(OpPassManager &, const TransformerPipelineOptions &)) {
  registerPassPipeline(
      name, description,
      [name, build](OpPassManager &pm, StringRef text,
                    function_ref<LogicalResult(const Twine &)> errorHandler) {
        TransformerPipelineOptions opts;
        if (failed(opts.parseFromString(text)))
          return failure();
        if (std::optional<std::string> error = checkPipelineOptions(opts))
          return errorHandler(name + ": " + *error);
        build(pm, opts);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(TransformerPipelineOptions());
      });
}

void transformer::registerTransformerPipelines() {
  registerCPUStrategyPipelines();
  registerPipeline("transformer-to-linalg-pipeline",
                   "Shape inference, canonicalization, attention fusion and "
                   "lowering to linalg on tensors",
                   buildTransformerToLinalgPipeline);
  registerPipeline("transformer-to-llvm",
                   "Compile the transformer dialect (mixed with upstream "
                   "tensor-level dialects) down to the LLVM dialect",
                   buildTransformerToLLVMPipeline);
}
