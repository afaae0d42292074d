//===- TransformerDialect.cpp - The transformer dialect -------------------===//

#include "Transformer/IR/TransformerDialect.h"

#include "Transformer/IR/TransformerOps.h"

using namespace mlir;
using namespace mlir::transformer;

#include "Transformer/IR/TransformerOpsDialect.cpp.inc"

void TransformerDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Transformer/IR/TransformerOps.cpp.inc"
      >();
}
