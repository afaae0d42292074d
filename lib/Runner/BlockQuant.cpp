//===- BlockQuant.cpp - ggml's Q8_0 and Q4_0 blocks on the host -----------===//

#include "Transformer/Runner/BlockQuant.h"
#include "Transformer/Runner/HalfFloat.h"

#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir::transformer;
using namespace mlir::transformer::runner;

llvm::StringRef runner::quantFormatName(QuantFormat format) {
  return format == QuantFormat::Q8_0 ? "q8_0" : "q4_0";
}

std::optional<QuantFormat> runner::parseQuantFormat(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<QuantFormat>>(name)
      .Case("q8_0", QuantFormat::Q8_0)
      .Case("q4_0", QuantFormat::Q4_0)
      .Default(std::nullopt);
}

int64_t runner::quantBlockBytes(QuantFormat format) {
  return 2 + (format == QuantFormat::Q8_0 ? kQuantBlockWeights
                                          : kQuantBlockWeights / 2);
}

namespace {
void storeScale(uint8_t *block, float scale) {
  uint16_t bits = floatToHalf(scale);
  block[0] = static_cast<uint8_t>(bits & 0xff);
  block[1] = static_cast<uint8_t>(bits >> 8);
}

/// ggml's `(int8_t)v` as x86 computes it (cvttss2si, then the low byte):
/// a NaN, an infinity or a value outside int32 gives 0 (0x80000000's low
/// byte), where a plain cast would be undefined. Only blocks of non-finite
/// or vanishing (below ~1e-36) weights take those paths.
int8_t toInt8(float v) {
  if (!(v > -2147483648.0f && v < 2147483648.0f))
    return 0;
  return static_cast<int8_t>(static_cast<int32_t>(v));
}

/// quantize_row_q8_0_ref: d = max |x| / 127 (ggml's MAX, which a NaN
/// wins), q = round(x / d) (half away from zero).
void quantizeBlockQ8_0(const float *x, uint8_t *block) {
  float amax = 0.0f;
  for (int64_t j = 0; j < kQuantBlockWeights; ++j)
    amax = amax > std::fabs(x[j]) ? amax : std::fabs(x[j]);
  float d = amax / 127.0f;
  float id = d != 0.0f ? 1.0f / d : 0.0f;
  storeScale(block, d);
  for (int64_t j = 0; j < kQuantBlockWeights; ++j)
    block[2 + j] = static_cast<uint8_t>(toInt8(std::roundf(x[j] * id)));
}

/// quantize_row_q4_0_ref: d = m / -8 for the value m of largest magnitude;
/// q = min(15, trunc(x / d + 8.5)), element j in the low nibble of byte j
/// and element j + 16 in its high nibble.
void quantizeBlockQ4_0(const float *x, uint8_t *block) {
  float amax = 0.0f, max = 0.0f;
  for (int64_t j = 0; j < kQuantBlockWeights; ++j)
    if (amax < std::fabs(x[j])) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
  float d = max / -8.0f;
  float id = d != 0.0f ? 1.0f / d : 0.0f;
  storeScale(block, d);
  constexpr int64_t half = kQuantBlockWeights / 2;
  for (int64_t j = 0; j < half; ++j) {
    auto level = [&](float v) {
      return static_cast<uint8_t>(std::min<int>(15, toInt8(v * id + 8.5f)));
    };
    block[2 + j] =
        static_cast<uint8_t>(level(x[j]) | (level(x[half + j]) << 4));
  }
}
} // namespace

void runner::quantizeRow(QuantFormat format, const float *row, int64_t count,
                         uint8_t *out) {
  int64_t bytes = quantBlockBytes(format);
  for (int64_t b = 0; b < count / kQuantBlockWeights; ++b) {
    const float *x = row + b * kQuantBlockWeights;
    uint8_t *block = out + b * bytes;
    if (format == QuantFormat::Q8_0)
      quantizeBlockQ8_0(x, block);
    else
      quantizeBlockQ4_0(x, block);
  }
}
