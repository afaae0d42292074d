//===- Passes.h - transformer passes ----------------------------*- C++ -*-===//
//
// The rewrites of the transformer dialect's own ops (shape inference,
// attention fusion).
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_TRANSFORMS_PASSES_H
#define TRANSFORMER_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

#include "Transformer/IR/TransformerDialect.h"

namespace mlir::transformer {

#define GEN_PASS_DECL
#include "Transformer/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Transformer/Transforms/Passes.h.inc"

} // namespace mlir::transformer

#endif // TRANSFORMER_TRANSFORMS_PASSES_H
