//===- PanelParameters.cpp - Weights bound in the register tile's panels --===//
//
// --transformer-cpu-panel-parameters: a weight bound by name
// (`transformer.parameter`, f32, bf16 or f16) whose every reader multiplies
// it as a plain B (C[m, n] += A[m, k] * B[k, n]) is passed by the caller
// laid out in panels, [n / r, k, r] for the [k, n] its type says, r the
// target's register tile width (a 16-bit panel's row is one cache line). The
// register tiles then read it in place (no per-call packing copy of B), and
// there is no copy of it beside the bound one: the runner, which converts such
// weights when it binds them anyway (a Llama projection is transposed), writes
// them in panels instead.
//
// The argument keeps its type, so that the function's signature does not
// change; each function that reads it (and each private function that
// receives it from every caller: a model's layer functions) views its
// buffer as panels.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/Passes.h"

#include "DotKernel.h"
#include "Panels.h"
#include "Transformer/Codegen/CPU/Target/CPUTarget.h"
#include "Transformer/IR/TransformerDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERCPUPANELPARAMETERSPASS
#include "Transformer/Codegen/CPU/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

namespace {

/// Whether a weight of `type` can be laid out in panels `width` wide: a
/// static f32, bf16 or f16 [k, n] with n a multiple of the width.
bool hasPanelableType(Type type, int64_t width) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return false;
  Type element = tensor.getElementType();
  return tensor.getRank() == 2 && tensor.hasStaticShape() &&
         (element.isF32() || isWidenedToF32(element)) &&
         tensor.getDimSize(0) > 0 && tensor.getDimSize(1) > 0 &&
         tensor.getDimSize(1) % width == 0;
}

/// The panels' type of a weight of `type` (hasPanelableType).
RankedTensorType getPanelsType(RankedTensorType tensor, int64_t width) {
  return RankedTensorType::get(
      {tensor.getDimSize(1) / width, tensor.getDimSize(0), width},
      tensor.getElementType());
}

/// Whether `use` is the B of a plain contraction C[m, n] += A[m, k] * B[k,
/// n] on tensors (A and C f32, B f32 or widened from bf16/f16) that reads it
/// nowhere else.
bool isPlainRhsUse(OpOperand &use) {
  auto op = dyn_cast<linalg::LinalgOp>(use.getOwner());
  if (!op || !op.hasPureTensorSemantics() || op.getNumLoops() != 3 ||
      op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      &use != op.getDpsInputOperand(1))
    return false;
  Value b = use.get(), a = op.getDpsInputs()[0], c = op.getDpsInits()[0];
  if (a == b || c == b || !getElementTypeOrSelf(a.getType()).isF32() ||
      !getElementTypeOrSelf(c.getType()).isF32())
    return false;
  return op.getIndexingMapsArray() ==
             linalg::MatmulOp::getDefaultIndexingMaps(op->getContext()) &&
         linalg::isaContractionOpInterface(op) && hasMulAddBody(op);
}

struct PanelParametersPass
    : transformer::impl::TransformerCPUPanelParametersPassBase<
          PanelParametersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    int64_t width = CPUTarget::forOp(module).contractionRegisterTile().n;
    if (width <= 0)
      return;

    // The calls of each private function, when calls are all its uses.
    llvm::MapVector<Operation *, SmallVector<func::CallOp>> callsOf;
    llvm::SetVector<BlockArgument> candidates;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (func.isPublic()) {
        // Only entry points: a public function that this module also calls
        // gets its weights from that call, as they are.
        std::optional<SymbolTable::UseRange> uses = func.getSymbolUses(module);
        if (!uses || !uses->empty())
          continue;
        for (BlockArgument arg : func.getArguments())
          if (func.getArgAttr(arg.getArgNumber(), kParameterAttrName) &&
              !arg.use_empty() && hasPanelableType(arg.getType(), width))
            candidates.insert(arg);
        continue;
      }
      std::optional<SymbolTable::UseRange> uses = func.getSymbolUses(module);
      if (!func.isPrivate() || !uses || uses->empty())
        continue;
      SmallVector<func::CallOp> calls;
      for (const SymbolTable::SymbolUse &use : *uses) {
        auto call = dyn_cast<func::CallOp>(use.getUser());
        if (!call || call.getCallee() != func.getSymName()) {
          calls.clear();
          break;
        }
        calls.push_back(call);
      }
      if (calls.empty())
        continue;
      callsOf[func] = std::move(calls);
      for (BlockArgument arg : func.getArguments())
        if (hasPanelableType(arg.getType(), width))
          candidates.insert(arg);
    }

    // A candidate stays when each of its uses is a plain B or a call that
    // passes it to a candidate, and, for a private function's argument, when
    // every call passes it a candidate: drop the others until none is left
    // to drop.
    auto isKept = [&](BlockArgument arg) {
      for (OpOperand &use : arg.getUses()) {
        if (isPlainRhsUse(use))
          continue;
        auto call = dyn_cast<func::CallOp>(use.getOwner());
        auto callee =
            call ? module.lookupSymbol<func::FuncOp>(call.getCalleeAttr())
                 : func::FuncOp();
        if (!callee || !callsOf.contains(callee) ||
            !candidates.contains(callee.getArgument(use.getOperandNumber())))
          return false;
      }
      auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
      if (func.isPublic())
        return true;
      return llvm::all_of(callsOf[func], [&](func::CallOp call) {
        auto passed =
            dyn_cast<BlockArgument>(call.getOperand(arg.getArgNumber()));
        return passed && candidates.contains(passed);
      });
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (BlockArgument arg : candidates.getArrayRef().vec())
        if (!isKept(arg)) {
          candidates.remove(arg);
          changed = true;
        }
    }
    if (candidates.empty())
      return;

    // Each function views its candidates' buffers as panels, which its
    // contractions read; calls pass the arguments as they are (constant
    // sizes and strides of views passed by the hundred in one call would
    // make LLVM's instruction selection merge their stack stores for
    // seconds).
    OpBuilder builder(ctx);
    IRRewriter rewriter(ctx);
    for (BlockArgument arg : candidates) {
      auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
      func.setArgAttr(arg.getArgNumber(), kPanelsArgAttrName,
                      builder.getI64IntegerAttr(width));
      SmallVector<OpOperand *> reads;
      for (OpOperand &use : arg.getUses())
        if (!isa<func::CallOp>(use.getOwner()))
          reads.push_back(&use);
      if (reads.empty())
        continue;
      auto type = cast<RankedTensorType>(arg.getType());
      RankedTensorType panelsType = getPanelsType(type, width);
      Location loc = arg.getLoc();
      builder.setInsertionPointToStart(arg.getOwner());
      auto buffer = bufferization::ToBufferOp::create(
          builder, loc, MemRefType::get(type.getShape(), type.getElementType()),
          arg,
          /*read_only=*/true);
      int64_t k = type.getDimSize(0);
      Value view = memref::ReinterpretCastOp::create(
          builder, loc,
          MemRefType::get(panelsType.getShape(), panelsType.getElementType()),
          buffer, /*offset=*/0, panelsType.getShape(),
          ArrayRef<int64_t>{k * width, width, 1});
      Value panels = bufferization::ToTensorOp::create(builder, loc, panelsType,
                                                       view, /*restrict=*/true,
                                                       /*writable=*/false);
      for (OpOperand *read : reads) {
        auto user = cast<linalg::LinalgOp>(read->getOwner());
        if (failed(readFromPanels(rewriter, user, panels, width))) {
          user->emitOpError("could not read its B in panels");
          return signalPassFailure();
        }
      }
    }

    // What the caller must know once argument attributes are gone (lowered
    // to the LLVM dialect): each public function's panel widths.
    NamedAttrList entries;
    if (auto previous =
            module->getAttrOfType<DictionaryAttr>(kPanelParametersAttrName))
      entries.append(previous.getValue());
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      SmallVector<int64_t> widths;
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
        auto attr = func.getArgAttrOfType<IntegerAttr>(i, kPanelsArgAttrName);
        widths.push_back(attr ? attr.getInt() : 0);
      }
      if (llvm::any_of(widths, [](int64_t w) { return w != 0; }))
        entries.set(func.getSymNameAttr(), DenseI64ArrayAttr::get(ctx, widths));
    }
    module->setAttr(kPanelParametersAttrName, entries.getDictionary(ctx));
  }
};

} // namespace
