//===- TransformerDialect.h - The transformer dialect -----------*- C++ -*-===//

#ifndef TRANSFORMER_IR_TRANSFORMERDIALECT_H
#define TRANSFORMER_IR_TRANSFORMERDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "Transformer/IR/TransformerOpsDialect.h.inc"

#endif // TRANSFORMER_IR_TRANSFORMERDIALECT_H
