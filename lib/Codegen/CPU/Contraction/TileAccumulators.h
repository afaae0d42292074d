//===- TileAccumulators.h - Accumulators of a cache tile's own size -------===//
//
// Tile-and-fuse gives a cache tile's contraction the slice of its result
// that the tile covers as its accumulator: every k block then loads and
// stores that slice of the result, a region of memory the call has not
// touched yet. transformer-cpu-fuse-epilogues gives a tile's contractions a
// temporary of the tile's own size instead, made in the tile and reused by
// the next one (it stays in L2), and the tile's last op writes the result
// once.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_TILEACCUMULATORS_H
#define TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_TILEACCUMULATORS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::transformer {

/// The constant upper bounds of `sizes` (a slice's, in a tile of a loop).
FailureOr<SmallVector<int64_t>> getUpperBounds(ArrayRef<OpFoldResult> sizes);

/// Gives the tiled sibling contraction (a gated MLP's second projection,
/// fused into the cache tiles of `loop`) an accumulator of its own: its
/// producer's (the zero fill's) init, a slice of a whole-result
/// tensor.empty, becomes a temporary of the tile's size.
void giveSiblingTileTemporary(RewriterBase &rewriter, linalg::LinalgOp sibling,
                              Operation *loop);

/// Makes the tiled contraction `tile` of the cache tiles `loop` accumulate
/// into a temporary of the tile's size rather than into its slice of the
/// result, and `root` (the tile's last op, whose result the loop inserts
/// into the result) write that slice: an element-wise epilogue that updates
/// the accumulator in place reads it as an input instead, and a tile
/// without an epilogue gets a copy. Only where the accumulator starts as a
/// fill (an element-wise op that does not read its init) of the result's
/// slice; else nothing changes. Returns the op that replaced `root` (which
/// is then erased), or null when `root` was kept.
Operation *accumulateInTileTemporary(RewriterBase &rewriter,
                                     linalg::LinalgOp tile, Operation *root,
                                     scf::ForallOp loop);

} // namespace mlir::transformer

#endif // TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_TILEACCUMULATORS_H
