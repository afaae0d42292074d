//===- ReturnInPlaceArguments.cpp - Return in-place arguments uncopied ----===//
//
// After the buffer deallocation pipeline, a clone of an argument marked
// `transformer.in_place` that the function only returns is replaced by the
// argument: the result aliases it instead of copying it.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/Common/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERRETURNINPLACEARGUMENTSPASS
#include "Transformer/Codegen/Common/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;

namespace {
/// The block argument `value` is, through memref.cast ops, if any.
BlockArgument getUnderlyingArgument(Value value) {
  while (auto cast = value.getDefiningOp<memref::CastOp>())
    value = cast.getSource();
  return dyn_cast<BlockArgument>(value);
}

struct TransformerReturnInPlaceArgumentsPass
    : transformer::impl::TransformerReturnInPlaceArgumentsPassBase<
          TransformerReturnInPlaceArgumentsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      SmallVector<bufferization::CloneOp> clones;
      func.walk([&](func::ReturnOp ret) {
        for (Value operand : ret.getOperands()) {
          auto clone = operand.getDefiningOp<bufferization::CloneOp>();
          if (!clone)
            continue;
          BlockArgument arg = getUnderlyingArgument(clone.getInput());
          if (!arg || arg.getOwner() != &func.getBody().front() ||
              !func.getArgAttr(arg.getArgNumber(),
                               transformer::kInPlaceAttrName))
            continue;
          // Only returned (and named in deallocation bookkeeping, which
          // never frees an argument, or in its lowered form: pointer
          // comparisons that keep a returned buffer from being freed): no
          // one writes the clone.
          if (llvm::any_of(clone->getUsers(), [](Operation *user) {
                return !isa<func::ReturnOp, bufferization::DeallocOp,
                            memref::ExtractStridedMetadataOp,
                            memref::ExtractAlignedPointerAsIndexOp>(user);
              }))
            continue;
          clones.push_back(clone);
        }
      });
      for (bufferization::CloneOp clone : clones) {
        OpBuilder b(clone);
        Value source = clone.getInput();
        if (source.getType() != clone.getType())
          source = memref::CastOp::create(b, clone.getLoc(), clone.getType(),
                                          source);
        clone.replaceAllUsesWith(source);
        clone.erase();
      }
    }
  }
};
} // namespace
