//===- BufferDeallocation.cpp - --transformer-buffer-deallocation ---------===//
//
// Upstream's buffer deallocation pipeline, applied to the functions that do
// not free memory themselves.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/Common/Passes.h"

#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERBUFFERDEALLOCATIONPASS
#include "Transformer/Codegen/Common/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;

namespace {
/// A function whose body the deallocation pipeline must not see, held as a
/// private declaration while the pipeline runs.
struct HiddenBody {
  FunctionOpInterface function;
  std::unique_ptr<Region> body;
  SymbolTable::Visibility visibility;
};

/// Whether `function` frees memory itself: the ownership-based deallocation
/// rejects a `memref.dealloc` it did not insert, and would free its
/// allocations a second time.
bool freesMemoryItself(FunctionOpInterface function) {
  return function
      ->walk([](memref::DeallocOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

struct TransformerBufferDeallocationPass
    : transformer::impl::TransformerBufferDeallocationPassBase<
          TransformerBufferDeallocationPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    TransformerBufferDeallocationPassBase::getDependentDialects(registry);
    // The nested pipeline's passes load what they create.
    OpPassManager pm(ModuleOp::getOperationName());
    bufferization::buildBufferDeallocationPipeline(pm);
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    // Bodies are moved out (the function stays as a private declaration, an
    // external function to the pipeline, which assumes the usual ABI for
    // it) and put back afterwards.
    SmallVector<HiddenBody> hidden;
    getOperation()->walk([&](FunctionOpInterface function) {
      if (function.isExternal() || !freesMemoryItself(function))
        return;
      HiddenBody entry{function, std::make_unique<Region>(),
                       SymbolTable::getSymbolVisibility(function)};
      entry.body->takeBody(function.getFunctionBody());
      SymbolTable::setSymbolVisibility(function,
                                       SymbolTable::Visibility::Private);
      hidden.push_back(std::move(entry));
    });
    OpPassManager pm(ModuleOp::getOperationName());
    bufferization::buildBufferDeallocationPipeline(pm);
    LogicalResult result = runPipeline(pm, getOperation());
    for (HiddenBody &entry : hidden) {
      entry.function.getFunctionBody().takeBody(*entry.body);
      SymbolTable::setSymbolVisibility(entry.function, entry.visibility);
    }
    if (failed(result))
      signalPassFailure();
  }
};
} // namespace
