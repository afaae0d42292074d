//===- TransformerOps.h - transformer dialect ops ---------------*- C++ -*-===//

#ifndef TRANSFORMER_IR_TRANSFORMEROPS_H
#define TRANSFORMER_IR_TRANSFORMEROPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Transformer/IR/TransformerDialect.h"
#include "Transformer/Interfaces/ShapeInferenceInterface.h"

#include "Transformer/IR/TransformerEnums.h.inc"

namespace mlir::transformer {
/// Weights per block, in every BlockFormat: ggml's QK8_0 and QK4_0.
constexpr int64_t kQuantBlockSize = 32;
/// Bytes per block of `format` (an f16 scale and the values): 34 for q8_0,
/// 18 for q4_0.
int64_t getBlockBytes(BlockFormat format);
} // namespace mlir::transformer

#define GET_OP_CLASSES
#include "Transformer/IR/TransformerOps.h.inc"

#endif // TRANSFORMER_IR_TRANSFORMEROPS_H
