//===- TransformerDialect.cpp - The transformer dialect -------------------===//

#include "Transformer/IR/TransformerDialect.h"

#include "Transformer/IR/TransformerOps.h"

#include "Transformer/Codegen/CPU/Target/CPUTarget.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::transformer;

#include "Transformer/IR/TransformerOpsDialect.cpp.inc"

namespace {
/// Every transformer op is pure and region-free, so it may be inlined
/// anywhere; this lets `--inline` run before shape inference.
struct TransformerInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void TransformerDialect::initialize() {
  addInterfaces<TransformerInlinerInterface>();
  addOperations<
#define GET_OP_LIST
#include "Transformer/IR/TransformerOps.cpp.inc"
      >();
}

/// The tags of the CPU contraction schedule
/// (lib/Codegen/CPU/Contraction/Schedules).
static constexpr llvm::StringLiteral kContractionTags[] = {
    "mnk",       "bmnk",       "mnk_tile",       "bmnk_tile",       "mnk_panel",
    "transpose", "btranspose", "transpose_tile", "btranspose_tile", "epilogue",
    "bepilogue", "dequantize", "panels"};

LogicalResult TransformerDialect::verifyRegionArgAttribute(
    Operation *op, unsigned regionIndex, unsigned argIndex,
    NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name == kPanelsArgAttrName) {
    auto width = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!width || width.getInt() <= 0)
      return op->emitError()
             << "'" << name << "' must be a positive integer, on argument "
             << argIndex;
    return success();
  }
  if (name != kConstantArgAttrName)
    return success();
  if (!isa<UnitAttr>(attribute.getValue()))
    return op->emitError() << "'" << name
                           << "' must be a unit attribute (no value), on "
                              "argument "
                           << argIndex;
  if (!isa<FunctionOpInterface>(op))
    return op->emitError() << "'" << name
                           << "' belongs on an argument of a function";
  return success();
}

LogicalResult
TransformerDialect::verifyOperationAttribute(Operation *op,
                                             NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name == kTargetAttrName) {
    auto dict = dyn_cast<DictionaryAttr>(attribute.getValue());
    if (!dict)
      return op->emitError() << "'" << name << "' must be a dictionary";
    if (!isa<ModuleOp>(op))
      return op->emitError() << "'" << name << "' belongs on a module";
    return CPUTarget::fromAttr(dict, [op] { return op->emitError(); });
  }
  if (name == kPanelParametersAttrName) {
    auto dict = dyn_cast<DictionaryAttr>(attribute.getValue());
    if (!dict || !isa<ModuleOp>(op))
      return op->emitError()
             << "'" << name << "' must be a dictionary on a module";
    for (NamedAttribute entry : dict) {
      auto widths = dyn_cast<DenseI64ArrayAttr>(entry.getValue());
      if (!widths ||
          llvm::any_of(widths.asArrayRef(), [](int64_t w) { return w < 0; }))
        return op->emitError()
               << "'" << name << "': '" << entry.getName().getValue()
               << "' must be an array<i64> of panel widths "
                  "(0 for none)";
    }
    return success();
  }
  if (name == "transformer.contraction") {
    auto tag = dyn_cast<StringAttr>(attribute.getValue());
    if (!tag || !llvm::is_contained(kContractionTags, tag.getValue()))
      return op->emitError()
             << "'" << name << "' must be one of "
             << llvm::join(llvm::map_range(kContractionTags,
                                           [](StringRef t) { return t; }),
                           ", ");
  }
  return success();
}
