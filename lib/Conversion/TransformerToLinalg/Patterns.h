//===- Patterns.h - The lowering patterns, by op family ---------*- C++ -*-===//

#ifndef TRANSFORMER_LIB_CONVERSION_TRANSFORMERTOLINALG_PATTERNS_H
#define TRANSFORMER_LIB_CONVERSION_TRANSFORMERTOLINALG_PATTERNS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::transformer::lowering {
/// scale, add, sub, mul, div, relu, gelu.
void populateElementwisePatterns(RewritePatternSet &patterns);
/// matmul, linear, transpose.
void populateMatmulPatterns(RewritePatternSet &patterns);
/// softmax, masked_softmax, layer_norm.
void populateNormalizationPatterns(RewritePatternSet &patterns);
/// attention, create_causal_mask.
void populateAttentionPatterns(RewritePatternSet &patterns);
/// dequantize.
void populateDequantizePatterns(RewritePatternSet &patterns);
/// embedding, rope.
void populateEmbeddingPatterns(RewritePatternSet &patterns);
} // namespace mlir::transformer::lowering

#endif // TRANSFORMER_LIB_CONVERSION_TRANSFORMERTOLINALG_PATTERNS_H
