//===- TransformerToLinalg.h - transformer to linalg ------------*- C++ -*-===//

#ifndef TRANSFORMER_CONVERSION_TRANSFORMERTOLINALG_TRANSFORMERTOLINALG_H
#define TRANSFORMER_CONVERSION_TRANSFORMERTOLINALG_TRANSFORMERTOLINALG_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::transformer {
/// Adds the patterns that lower every transformer op to linalg, tensor,
/// arith, math and cf on tensors.
void populateTransformerToLinalgPatterns(RewritePatternSet &patterns);
} // namespace mlir::transformer

#endif // TRANSFORMER_CONVERSION_TRANSFORMERTOLINALG_TRANSFORMERTOLINALG_H
