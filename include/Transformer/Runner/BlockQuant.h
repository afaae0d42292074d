//===- BlockQuant.h - ggml's Q8_0 and Q4_0 blocks on the host ---*- C++ -*-===//
//
// Quantizes f32 rows into ggml's blocks exactly as ggml's reference
// functions do (quantize_row_q8_0_ref, quantize_row_q4_0_ref), so that a
// weight converted when it is bound and the same weight quantized by
// llama.cpp are the same bytes. The block layout is transformer.dequantize's.
// Kept free of MLIR headers.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_RUNNER_BLOCKQUANT_H
#define TRANSFORMER_RUNNER_BLOCKQUANT_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mlir::transformer::runner {

/// The block formats of `transformer.block_format` argument attributes.
enum class QuantFormat { Q8_0, Q4_0 };

/// Weights per block.
inline constexpr int64_t kQuantBlockWeights = 32;

/// `q8_0`, `q4_0`.
llvm::StringRef quantFormatName(QuantFormat format);
std::optional<QuantFormat> parseQuantFormat(llvm::StringRef name);
/// Bytes per block: 34 (q8_0), 18 (q4_0).
int64_t quantBlockBytes(QuantFormat format);

/// Quantizes `count` floats (a multiple of kQuantBlockWeights) into
/// count / 32 blocks at `out`.
void quantizeRow(QuantFormat format, const float *row, int64_t count,
                 uint8_t *out);

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_RUNNER_BLOCKQUANT_H
