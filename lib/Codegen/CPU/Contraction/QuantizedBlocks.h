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

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::transformer {

/// The scale of block `block` of row `row` of `blocks` ([N, B, S] of i8) in
/// every lane of a vector of `lanes` f32.
Value readBlockScale(OpBuilder &b, Location loc, Value blocks, Value row,
                     Value block, int64_t lanes);

/// The 32 quantized values of block `block` of row `row`, unscaled, as
/// 32 / `lanes` vectors of `lanes` f32 in order. With `offset` (Q4_0 only),
/// Q4_0's values are left as stored, q + 8 (0 to 15), and `*offset` is set
/// to 8: a caller that subtracts 8 * sum(a) once per block of A, for all
/// the rows of B it reads, saves recentring each row's values.
SmallVector<Value> readBlockValues(OpBuilder &b, Location loc, Value blocks,
                                   BlockFormat format, Value row, Value block,
                                   int64_t lanes, int64_t *offset = nullptr);

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

/// The f32 values of the `columns` x K weight rows `weight` ([N, K], rows
/// past N repeating the last), transposed ([K, columns]), as a
/// linalg.generic that computes each element from its block (scalar code)
/// and is tagged `transformer.contraction = "dequantize"`: the B of a
/// many-rows contraction, which transformer-cpu-fuse-epilogues makes per
/// cache tile and k block with buildTransposedDequantizeSlice (or, where it
/// does not, whole with buildTransposedDequantizeKernel). `weight`'s blocks
/// have a static shape.
Value buildTransposedDequantization(OpBuilder &b, Location loc,
                                    const DequantizedWeight &weight,
                                    int64_t columns);
/// The slice of buildTransposedDequantization's result from (`firstK`,
/// `firstRow`) of `init`'s size (a multiple of 32 deep and of `lanes` wide;
/// `firstK` a multiple of 32), written into `init` ([k, n], or the same
/// laid out in panels [n / w, k, w] of a static width w, a multiple of
/// `lanes`) by vector code: per
/// group of `lanes` weight rows and block of 32, the values widened and
/// scaled in registers, then transposed there (`lanes` x `lanes` tiles,
/// vector.shuffle) and stored as rows of k.
Value buildTransposedDequantizeSlice(OpBuilder &b, Location loc,
                                     const DequantizedWeight &weight,
                                     Value init, OpFoldResult firstK,
                                     OpFoldResult firstRow, int64_t lanes);
/// Replaces `op`, whose B is the dequantized weight `quantized` indexed
/// (n, k), by the same contraction of an f32 B indexed (k, n), the layout
/// of the f32 weights' tiled path (GPT-2's Conv1D [in, out]): no transposed
/// copy. B is buildTransposedDequantization's generic when the blocks have
/// a static shape, otherwise a whole f32 copy made by
/// buildTransposedDequantizeKernel right before the contraction. Either is
/// made inside the many-rows branch of splitOnRowCount, so that the
/// few-rows kernel, which reads the blocks, never pays for it. Returns the
/// new contraction, or `op` when B is not indexed (n, k).
linalg::LinalgOp
dequantizeBeforeContraction(RewriterBase &rewriter, linalg::LinalgOp op,
                            const DequantizedWeight &quantized);
/// When `op`'s B is a tensor.pad (of its columns: the register tile's
/// multiple) of a buildTransposedDequantization generic, replaces the pad
/// by that generic made wide enough: the padded columns of B only reach the
/// padded columns of C, which are dropped.
void foldPaddedDequantization(RewriterBase &rewriter, linalg::LinalgOp op);
/// Removes the lowered transformer.dequantize ops that the kernels replaced:
/// the sizes still read from them are those of their (empty) init.
void eraseDeadDequantizations(RewriterBase &rewriter, Operation *root);

} // namespace mlir::transformer

#endif // TRANSFORMER_LIB_CODEGEN_CPU_QUANTIZEDBLOCKS_H
