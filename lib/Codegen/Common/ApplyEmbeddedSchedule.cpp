//===- ApplyEmbeddedSchedule.cpp - --transformer-apply-embedded-schedule --===//
//
// Applies the transform script a program carries (`@__transform_main`), as
// upstream's test pipelines do with --transform-interpreter, and removes it.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/Common/Passes.h"

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERAPPLYEMBEDDEDSCHEDULEPASS
#include "Transformer/Codegen/Common/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;

namespace {
/// The module attribute that marks a module holding named sequences.
constexpr StringLiteral kWithNamedSequence = "transform.with_named_sequence";

bool isTransformOp(Operation &op) {
  return isa_and_nonnull<transform::TransformDialect>(op.getDialect());
}

/// Erases the script: transform ops at the top level, and nested modules
/// that hold nothing else.
void eraseSchedule(ModuleOp module) {
  for (Operation &op : llvm::make_early_inc_range(*module.getBody())) {
    auto nested = dyn_cast<ModuleOp>(op);
    if (isTransformOp(op) || (nested && nested->hasAttr(kWithNamedSequence) &&
                              llvm::all_of(*nested.getBody(), isTransformOp)))
      op.erase();
  }
  module->removeAttr(kWithNamedSequence);
}

struct TransformerApplyEmbeddedSchedulePass
    : transformer::impl::TransformerApplyEmbeddedSchedulePassBase<
          TransformerApplyEmbeddedSchedulePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Looked up here rather than with the interpreter's own lookup, which
    // reports a module without a script as an error.
    transform::NamedSequenceOp entry;
    module->walk([&](transform::NamedSequenceOp sequence) {
      if (sequence.getSymName() !=
          transform::TransformDialect::kTransformEntryPointSymbolName)
        return WalkResult::advance();
      entry = sequence;
      return WalkResult::interrupt();
    });
    if (!entry)
      return;
    if (failed(transform::applyTransformNamedSequence(
            module, entry, ModuleOp(), transform::TransformOptions())))
      return signalPassFailure();
    eraseSchedule(module);
  }
};
} // namespace
