//===- Passes.h - transformer conversion passes -----------------*- C++ -*-===//
//
// The passes that convert the transformer dialect into other dialects, as
// upstream's mlir/Conversion/Passes.h: one header that declares them all and
// `registerTransformerConversionPasses()`.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_CONVERSION_PASSES_H
#define TRANSFORMER_CONVERSION_PASSES_H

#include "Transformer/Conversion/TransformerToLinalg/TransformerToLinalg.h"
#include "Transformer/IR/TransformerDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::transformer {

#define GEN_PASS_DECL
#include "Transformer/Conversion/Passes.h.inc"

/// Generated `registerTransformerConversionPasses()` and one
/// `register<Pass>()` per pass.
#define GEN_PASS_REGISTRATION
#include "Transformer/Conversion/Passes.h.inc"

} // namespace mlir::transformer

#endif // TRANSFORMER_CONVERSION_PASSES_H
