//===- TransformerDialect.h - The transformer dialect -----------*- C++ -*-===//

#ifndef TRANSFORMER_IR_TRANSFORMERDIALECT_H
#define TRANSFORMER_IR_TRANSFORMERDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "Transformer/IR/TransformerOpsDialect.h.inc"

namespace mlir::transformer {
/// The unit attribute of a function argument that is the same on every call
/// (a model's weight); verified by the dialect, read by
/// --transformer-cpu-cache-constant-weights.
inline constexpr llvm::StringLiteral kConstantArgAttrName =
    "transformer.constant";
} // namespace mlir::transformer

#endif // TRANSFORMER_IR_TRANSFORMERDIALECT_H
