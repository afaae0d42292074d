//===- WeightCache.h - What the weight cache's passes share -----*- C++ -*-===//

#ifndef TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_WEIGHTCACHE_H
#define TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_WEIGHTCACHE_H

#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::transformer {

/// The name of the globals that hold the transposed copies of constant
/// weights (--transformer-cpu-cache-constant-weights; symbol uniquing may
/// add a suffix), which --transformer-cpu-allocate-weight-cache allocates
/// when first used.
inline constexpr llvm::StringLiteral kWeightCacheName =
    "__transformer_weight_cache";

/// The name of the globals that hold the pointer each copy was made from.
inline constexpr llvm::StringLiteral kWeightCacheKeyName =
    "__transformer_weight_cache_key";

/// How a contraction over (m, n, k) reads a constant weight copied in
/// panels `width` columns wide ([n / width, k, width]): (n floordiv width,
/// k, n mod width). Written by --transformer-cpu-cache-constant-weights,
/// matched by --transformer-cpu-panel-contractions.
inline AffineMap getPanelIndexingMap(MLIRContext *ctx, int64_t width) {
  AffineExpr n = getAffineDimExpr(1, ctx), k = getAffineDimExpr(2, ctx);
  return AffineMap::get(3, 0, {n.floorDiv(width), k, n % width}, ctx);
}

} // namespace mlir::transformer

#endif // TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_WEIGHTCACHE_H
