//===- Dequantize.h - transformer.dequantize in linalg ----------*- C++ -*-===//
//
// How `transformer.dequantize` looks after the lowering, for the passes that
// fuse it into its consumers (the CPU codegen's contraction kernels): a
// linalg.generic computing the f32 weights, tagged with its format.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_CONVERSION_TRANSFORMERTOLINALG_DEQUANTIZE_H
#define TRANSFORMER_CONVERSION_TRANSFORMERTOLINALG_DEQUANTIZE_H

#include "Transformer/IR/TransformerOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::transformer {

/// The attribute (the format's name) on the linalg.generic that a
/// `transformer.dequantize` lowers to.
inline constexpr llvm::StringLiteral kDequantizeAttrName =
    "transformer.dequantize";

/// The blocks and format of a value made by a lowered `transformer.dequantize`
/// (a linalg.generic tagged kDequantizeAttrName), if `value` is one.
struct DequantizedWeight {
  Value blocks;
  BlockFormat format;
};
std::optional<DequantizedWeight> getDequantizedWeight(Value value);

/// The f32 weight at `rowIndices`..., `column` of the blocks `blocks`
/// (`..xNxBxS` of i8, see transformer.dequantize), as scalar code.
Value buildDequantizedElement(OpBuilder &b, Location loc, Value blocks,
                              BlockFormat format, ValueRange rowIndices,
                              Value column);

} // namespace mlir::transformer

#endif // TRANSFORMER_CONVERSION_TRANSFORMERTOLINALG_DEQUANTIZE_H
