//===- TileSizes.h - Tile sizes that divide a problem -----------*- C++ -*-===//
//
// Internal to the CPU codegen library. A tile (a cache tile, a k block)
// that divides its dimension has the same static size in every iteration:
// no remainder whose dynamic size would make the packing copies masked and
// the register tiles' remainders scalar, and no second copy of every
// register tile variant for a remainder block (compile time, code size).
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_TILESIZES_H
#define TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_TILESIZES_H

#include <cstdint>

namespace mlir::transformer {

/// The largest multiple of `multiple` from `target` down to `target` / 2
/// that divides `size` (static, positive); 0 when none does. Below half
/// the target a tile would reload its accumulators, or its share of the
/// operands, too often to be worth its static size.
inline int64_t getDividingSize(int64_t size, int64_t target, int64_t multiple) {
  if (size <= 0 || target <= 0 || multiple <= 0)
    return 0;
  for (int64_t t = target - target % multiple; t > 0 && 2 * t >= target;
       t -= multiple)
    if (size % t == 0)
      return t;
  return 0;
}

} // namespace mlir::transformer

#endif // TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_TILESIZES_H
