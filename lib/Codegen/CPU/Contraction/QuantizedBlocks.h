//===- QuantizedBlocks.h - Reading ggml blocks in vector code --*- C++ -*-===//
//
// Internal to the CPU codegen library: the contraction kernels' reads of a
// dequantized weight (transformer.dequantize, lowered to a tagged
// linalg.generic) straight from its blocks, widened in registers, and the
// vector form of the dequantization itself.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_CODEGEN_CPU_QUANTIZEDBLOCKS_H
#define TRANSFORMER_LIB_CODEGEN_CPU_QUANTIZEDBLOCKS_H

#include "Transformer/Conversion/TransformerToLinalg/Dequantize.h"

#include "mlir/IR/Builders.h"

namespace mlir::transformer {

/// The scale of block `block` of row `row` of `blocks` ([N, B, S] of i8) as
/// an f32 scalar.
Value readBlockScale(OpBuilder &b, Location loc, Value blocks, Value row,
                     Value block);

/// The 32 quantized values of block `block` of row `row`, unscaled, as
/// 32 / `lanes` vectors of `lanes` f32 in order.
SmallVector<Value> readBlockValues(OpBuilder &b, Location loc, Value blocks,
                                   BlockFormat format, Value row, Value block,
                                   int64_t lanes);

/// The f32 weights of `weight` ([N, K]) transposed, [K, N], written into
/// `init` by vector code: groups of rows over the threads; per group of
/// `lanes` rows and block of 32, the values widened and scaled in registers,
/// then transposed there (`lanes` x `lanes` tiles, vector.shuffle) and
/// stored as rows of k. The many-rows contractions read this (prefill) as
/// an f32 B indexed (k, n), the layout of the f32 weights' tiled path; the
/// few-rows kernels read the blocks themselves.
Value buildTransposedDequantizeKernel(OpBuilder &b, Location loc,
                                      const DequantizedWeight &weight,
                                      Value init, int64_t lanes);

} // namespace mlir::transformer

#endif // TRANSFORMER_LIB_CODEGEN_CPU_QUANTIZEDBLOCKS_H
