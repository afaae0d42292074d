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
/// The attribute of an argument bound from a weight file by name (the
/// runner's kParameterAttrName, Transformer/Runner/Signature.h).
inline constexpr llvm::StringLiteral kParameterAttrName =
    "transformer.parameter";
/// The attribute of a weight argument that the caller must pass laid out in
/// panels of this many columns ([n / r, k, r] for the [k, n] the type
/// says); written by --transformer-cpu-panel-parameters.
inline constexpr llvm::StringLiteral kPanelsArgAttrName = "transformer.panels";
/// The module attribute that tells a caller the same after lowering (when
/// argument attributes are gone): for each function with such arguments,
/// its name and one panel width per argument (0: as the type says).
inline constexpr llvm::StringLiteral kPanelParametersAttrName =
    "transformer.panel_parameters";
} // namespace mlir::transformer

#endif // TRANSFORMER_IR_TRANSFORMERDIALECT_H
