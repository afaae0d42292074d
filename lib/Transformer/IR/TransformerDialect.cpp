//===- TransformerDialect.cpp - The transformer dialect -------------------===//

#include "Transformer/IR/TransformerDialect.h"

#include "Transformer/IR/TransformerOps.h"

#include "mlir/Transforms/InliningUtils.h"

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
