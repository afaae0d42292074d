//===- WeightCache.h - What the weight cache's passes share -----*- C++ -*-===//

#ifndef TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_WEIGHTCACHE_H
#define TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_WEIGHTCACHE_H

#include "mlir/IR/Value.h"
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

/// Whether `value` is an argument of its function that is the same on
/// every call (`transformer.constant`, or a weight bound by name).
bool isConstantArgument(Value value);

} // namespace mlir::transformer

#endif // TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_WEIGHTCACHE_H
