//===- HalfFloat.cpp - f16 and bf16 bits to and from f32 ------------------===//

#include "Transformer/Runner/HalfFloat.h"

#include <cstring>

using namespace mlir::transformer;
using namespace mlir::transformer::runner;

namespace {
uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}
} // namespace

float runner::halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  if (exp == 0x1f)
    return floatOf(sign | 0x7f800000 | (mant << 13));
  if (exp != 0)
    return floatOf(sign | ((exp + 112) << 23) | (mant << 13));
  if (mant == 0)
    return floatOf(sign);
  // Subnormal: normalise the mantissa.
  int shift = 0;
  while (!(mant & 0x400)) {
    mant <<= 1;
    ++shift;
  }
  return floatOf(sign | ((113 - shift) << 23) | ((mant & 0x3ff) << 13));
}

uint16_t runner::floatToHalf(float value) {
  uint32_t bits = bitsOf(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  uint32_t exp = (bits >> 23) & 0xff;
  uint32_t mant = bits & 0x7fffff;
  if (exp == 0xff) // Infinity, or NaN with a quiet bit set.
    return sign | 0x7c00 | (mant ? 0x200 | (mant >> 13) : 0);
  int32_t halfExp = static_cast<int32_t>(exp) - 127 + 15;
  if (halfExp >= 0x1f) // Too large: infinity.
    return sign | 0x7c00;
  if (halfExp <= 0) {
    // Subnormal or zero: shift the mantissa (with its implicit bit) right,
    // rounding to nearest even on the bits shifted out.
    if (halfExp < -10)
      return sign;
    uint32_t full = mant | 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - halfExp);
    uint32_t result = full >> shift;
    uint32_t rest = full & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (result & 1)))
      ++result;
    return sign | static_cast<uint16_t>(result);
  }
  uint32_t result = (static_cast<uint32_t>(halfExp) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  // A carry out of the mantissa rounds into the exponent (up to infinity).
  if (rest > 0x1000 || (rest == 0x1000 && (result & 1)))
    ++result;
  return sign | static_cast<uint16_t>(result);
}

float runner::bfloat16ToFloat(uint16_t bits) {
  return floatOf(static_cast<uint32_t>(bits) << 16);
}

uint16_t runner::floatToBfloat16(float value) {
  uint32_t bits = bitsOf(value);
  if ((bits & 0x7fffffff) > 0x7f800000) // NaN: keep it quiet.
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}
