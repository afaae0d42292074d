//===- ApplySchedule.cpp - Apply the CPU transform schedule ---------------===//
//
// Parses the schedule (built in, or a user's file) and runs its
// `@__transform_main` on the module with the transform interpreter.
//
//===----------------------------------------------------------------------===//

#include "ForwardBlockCopies.h"
#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/Codegen/CPU/Target/CPUTarget.h"

#include "mlir/Dialect/Affine/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Affine/TransformOps/AffineTransformOps.h"
#include "mlir/Dialect/Arith/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/TransformOps/DialectExtension.h"
#include "mlir/Dialect/Linalg/Transforms/AllInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/TransformOps/MemRefTransformOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/TransformOps/SCFTransformOps.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/TensorTilingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Dialect/Vector/TransformOps/VectorTransformOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERCPUCODEGENPASS
#include "Transformer/Codegen/CPU/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

namespace {

/// The attribute with which a schedule tags the k loops of its register
/// tiles (see unrollRegisterTileKLoops).
constexpr llvm::StringLiteral kUnrollKAttrName = "transformer.unroll_k";
constexpr int64_t kKUnrollFactor = 4;

/// The k block the schedule tiles the module's contractions by: of the
/// multiples of 8 from the target's down to its half, the one that leaves
/// the fewest of the module's contractions of static depth with a
/// remainder block, the largest of those (K = 896 is 3 x 256 + 128 but
/// 4 x 224; K = 1000, 5 x 200). A remainder block is a second copy of
/// every register-tile variant of the cache tile: compile time, for no
/// speed.
int64_t chooseKBlock(ModuleOp module, int64_t targetK) {
  SmallVector<int64_t> depths;
  module.walk([&](linalg::LinalgOp op) {
    auto tag = op->getAttrOfType<StringAttr>(kContractionAttrName);
    if (!tag || !llvm::is_contained({"mnk", "bmnk", "mnk_tile", "bmnk_tile"},
                                    tag.getValue()))
      return;
    int64_t depth = op.getStaticLoopRanges().back();
    if (!ShapedType::isDynamic(depth))
      depths.push_back(depth);
  });
  auto countRemainders = [&](int64_t block) {
    return llvm::count_if(depths, [&](int64_t depth) {
      return depth > block && depth % block != 0;
    });
  };
  int64_t best = targetK;
  int64_t fewest = countRemainders(targetK);
  constexpr int64_t kStep = 8;
  for (int64_t block = targetK - targetK % kStep;
       fewest > 0 && 2 * block >= targetK && block >= kKUnrollFactor;
       block -= kStep) {
    int64_t remainders = countRemainders(block);
    if (remainders < fewest) {
      best = block;
      fewest = remainders;
    }
  }
  return best;
}

/// Unrolls by 4 the k loops tagged `transformer.unroll_k` that run a
/// register tile of several rows (a 2-D accumulator vector of 2 rows or
/// more) a static number of steps that 4 divides. One step of k is then 2m
/// FMAs plus the loop's increment, compare and branch, which the core may
/// issue on the ports the FMAs need; unrolled, a quarter as many. The
/// remainder tiles (one row, or a dynamic size) stay rolled: they are rare,
/// and a copy of each unrolled would cost compile time in every kernel.
void unrollRegisterTileKLoops(ModuleOp module) {
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) {
    if (loop->removeAttr(kUnrollKAttrName))
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops) {
    std::optional<APInt> trips = loop.getStaticTripCount();
    if (!trips || trips->getZExtValue() < uint64_t(kKUnrollFactor) ||
        trips->getZExtValue() % kKUnrollFactor != 0)
      continue;
    bool tileOfRows = llvm::any_of(loop.getInitArgs(), [](Value init) {
      auto type = dyn_cast<VectorType>(init.getType());
      return type && type.getRank() == 2 && type.getDimSize(0) >= 2;
    });
    if (tileOfRows)
      (void)loopUnrollByFactor(loop, kKUnrollFactor);
  }
}

/// Moves the buffers that the schedule allocates inside loops (B's packed
/// panels, from `transform.structured.promote`: a `memref.alloc` of static
/// shape used and freed in one loop body) before the outermost loop of the
/// nest, stopping at an `scf.forall` (each of whose tasks keeps its own
/// buffer) or the function: one allocation per cache tile rather than one per
/// panel and k block. The buffer holds nothing from one iteration to the
/// next, so one buffer serves them all. Any op other than an scf.for (an
/// scf.forall, an scf.if) stops the climb. Aligned to a cache line.
void hoistLoopLocalAllocations(ModuleOp module) {
  SmallVector<memref::AllocOp> allocs;
  module.walk([&](memref::AllocOp alloc) {
    if (alloc->getNumOperands() == 0 && alloc.getType().hasStaticShape() &&
        isa<scf::ForOp>(alloc->getParentOp()))
      allocs.push_back(alloc);
  });
  for (memref::AllocOp alloc : allocs) {
    memref::DeallocOp dealloc;
    bool local = true;
    for (Operation *user : alloc->getUsers()) {
      local &= user->getBlock() == alloc->getBlock();
      if (auto free = dyn_cast<memref::DeallocOp>(user))
        local &= !std::exchange(dealloc, free);
    }
    if (!local || !dealloc)
      continue;
    Operation *loop = alloc->getParentOp();
    while (isa<scf::ForOp>(loop->getParentOp()))
      loop = loop->getParentOp();
    alloc->moveBefore(loop);
    dealloc->moveAfter(loop);
    if (!alloc.getAlignment())
      alloc.setAlignment(64);
  }
}

struct CPUCodegenPass
    : public transformer::impl::TransformerCPUCodegenPassBase<CPUCodegenPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    affine::registerTransformDialectExtension(registry);
    linalg::registerTransformDialectExtension(registry);
    scf::registerTransformDialectExtension(registry);
    vector::registerTransformDialectExtension(registry);
    memref::registerTransformDialectExtension(registry);
    // What the schedule's tiling, peeling and vectorization ask of the ops
    // (TilingInterface, ValueBoundsOpInterface, ...): external models that a
    // tool with a small registry (not registerAllExtensions) would lack.
    linalg::registerAllDialectInterfaceImplementations(registry);
    tensor::registerTilingInterfaceExternalModels(registry);
    tensor::registerValueBoundsOpInterfaceExternalModels(registry);
    affine::registerValueBoundsOpInterfaceExternalModels(registry);
    arith::registerValueBoundsOpInterfaceExternalModels(registry);
    memref::registerValueBoundsOpInterfaceExternalModels(registry);
    scf::registerValueBoundsOpInterfaceExternalModels(registry);
  }

  /// Parses the schedule once per pass instance.
  LogicalResult initialize(MLIRContext *context) override {
    llvm::SourceMgr sourceMgr;
    if (schedule.empty()) {
      sourceMgr.AddNewSourceBuffer(
          llvm::MemoryBuffer::getMemBuffer(getDefaultContractionSchedule(),
                                           "contraction.mlir",
                                           /*RequiresNullTerminator=*/false),
          llvm::SMLoc());
    } else {
      llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
          llvm::MemoryBuffer::getFile(schedule);
      if (!file)
        return emitError(UnknownLoc::get(context))
               << "cannot read the transform schedule '" << schedule
               << "': " << file.getError().message();
      sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
    }
    OwningOpRef<ModuleOp> parsed =
        parseSourceFile<ModuleOp>(sourceMgr, context);
    if (!parsed)
      return failure();
    scheduleModule = std::make_shared<OwningOpRef<ModuleOp>>(std::move(parsed));
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Operation *entry =
        (*scheduleModule)
            ->lookupSymbol<transform::NamedSequenceOp>(
                transform::TransformDialect::kTransformEntryPointSymbolName);
    if (!entry) {
      module.emitError() << "the transform schedule"
                         << (schedule.empty() ? "" : " '" + schedule + "'")
                         << " has no @__transform_main named sequence";
      return signalPassFailure();
    }
    // The payload, then (as many as the schedule takes) the target's tile
    // sizes as !transform.param<i64>: register m and n, cache m, n and k,
    // the f32 lanes. Later additions go at the end, so that a schedule
    // written for fewer keeps working.
    CPUTarget target = CPUTarget::forOp(module);
    RegisterTile registers = target.contractionRegisterTile();
    CacheTile cache = target.contractionCacheTile();
    int64_t blockK = chooseKBlock(module, cache.k);
    SmallVector<int64_t> sizes = {registers.m, registers.n, cache.m,
                                  cache.n,     blockK,      target.f32Lanes()};
    auto sequence = cast<transform::NamedSequenceOp>(entry);
    unsigned arguments = sequence.getFunctionType().getNumInputs();
    if (arguments < 1 || arguments > 1 + sizes.size()) {
      module.emitError() << "the transform schedule"
                         << (schedule.empty() ? "" : " '" + schedule + "'")
                         << " must take the payload root, optionally followed "
                            "by the target's tile sizes (register m, n; "
                            "cache m, n, k; lanes: up to "
                         << sizes.size() << " !transform.param<i64>), got "
                         << arguments << " arguments";
      return signalPassFailure();
    }
    RaggedArray<transform::MappedValue> bindings;
    bindings.push_back(ArrayRef<transform::MappedValue>{module.getOperation()});
    Builder b(&getContext());
    for (int64_t size : ArrayRef(sizes).take_front(arguments - 1))
      bindings.push_back(
          ArrayRef<transform::MappedValue>{b.getI64IntegerAttr(size)});
    if (failed(transform::applyTransformNamedSequence(
            bindings, cast<transform::TransformOpInterface>(entry),
            **scheduleModule, transform::TransformOptions())))
      return signalPassFailure();
    forwardBlockCopies(module);
    hoistLoopLocalAllocations(module);
    unrollRegisterTileKLoops(module);
    // The tags have done their job; later passes and printed IR do not need
    // them.
    module.walk([](Operation *op) { op->removeAttr(kContractionAttrName); });
    // exp, tanh and erf in the fused epilogues (GELU after a projection) as
    // polynomials, as transformer-cpu-vectorize-rows makes them in row ops:
    // LLVM would otherwise call libm once per lane.
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      return name == math::ExpOp::getOperationName() ||
             name == math::TanhOp::getOperationName() ||
             name == math::ErfOp::getOperationName();
    });
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
  }

  /// Shared between clones of the pass (the pass manager copies passes).
  std::shared_ptr<OwningOpRef<ModuleOp>> scheduleModule;
};

} // namespace
