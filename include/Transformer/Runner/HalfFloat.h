//===- HalfFloat.h - f16 and bf16 bits to and from f32 ----------*- C++ -*-===//
//
// The conversions transformer-run makes when it binds values to 16-bit float
// arguments or reads 16-bit floats from files: exact widening, and narrowing
// rounded to nearest even, as numpy's astype(float16) and PyTorch's
// to(bfloat16) do (NaN stays NaN, overflow becomes infinity).
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_RUNNER_HALFFLOAT_H
#define TRANSFORMER_RUNNER_HALFFLOAT_H

#include <cstdint>

namespace mlir::transformer::runner {

/// IEEE binary16 to f32, exactly (subnormals, infinities and NaN included).
float halfToFloat(uint16_t bits);
/// f32 to IEEE binary16, rounded to nearest even.
uint16_t floatToHalf(float value);
/// bfloat16 to f32, exactly.
float bfloat16ToFloat(uint16_t bits);
/// f32 to bfloat16, rounded to nearest even.
uint16_t floatToBfloat16(float value);

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_RUNNER_HALFFLOAT_H
