//===- FlashAttention.h - Flash attention kernels and mask blocks -*- C++
//-*-===//
//
// The flash-style attention kernel built by --transformer-cpu-flash-attention
// and the block classification of masks that --transformer-mask-sparsity
// records in the IR (and the kernel reads back).
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_CODEGEN_CPU_FLASHATTENTION_H
#define TRANSFORMER_CODEGEN_CPU_FLASHATTENTION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include <string>

namespace mlir::transformer {

/// The attribute --transformer-mask-sparsity attaches to the ops that consume
/// (or produce) a mask known at compile time: a dictionary
/// `{block = array<i64: BQ, BK>, rows = ["VVPM", ...]}` with one string per
/// query block and one character per key block: `M` fully masked (never
/// computed), `V` fully visible (no mask applied), `P` partial.
constexpr llvm::StringLiteral kMaskBlocksAttrName = "transformer.mask_blocks";

/// Block sizes of the analysis; the flash kernel's key blocks are the same.
constexpr int64_t kMaskBlockQ = 64;
constexpr int64_t kMaskBlockK = 64;

/// Per (query block, key block) classes of a mask.
struct MaskBlocks {
  int64_t blockQ = kMaskBlockQ, blockK = kMaskBlockK;
  SmallVector<std::string> rows; // 'M', 'V' or 'P'
  char at(int64_t qb, int64_t kb) const { return rows[qb][kb]; }
  DictionaryAttr toAttr(MLIRContext *ctx) const;
  static std::optional<MaskBlocks> fromAttr(Attribute attr);
};

/// What one flash kernel computes. The kernel reads `q [BH, Sq, D]`,
/// `k [BH, Sk, D]`, `v [BH, Sk, Dv]`, an optional additive mask
/// `[1 or BH, 1 or Sq, 1 or Sk]` and writes `out [BH, Sq, Dv]`; with `split`
/// it takes three scratch buffers for the partial softmaxes of key chunks.
struct FlashKernelConfig {
  /// f32 lanes of the target's vectors (16 with AVX-512, 8 with AVX2).
  int64_t lanes = 16;
  /// Vectors of `lanes` queries per query block (lanes * vectors queries).
  int64_t vectors = 4;
  /// Keys per step of the score and P V register tiles (`keyRows` x
  /// `vectors` accumulators).
  int64_t keyRows = 4;
  /// Scale of the scores; std::nullopt: 1/sqrt(D) at run time.
  std::optional<float> scale;
  bool causal = false;
  std::optional<int64_t> window;
  bool hasMask = false;
  /// Flash-decoding: key chunks over tasks, partial softmaxes combined.
  bool split = false;
  /// Static classes of the mask operand's blocks (from the sparsity pass).
  std::optional<MaskBlocks> maskBlocks;
  /// Threads the tasks run on; they fork only for work enough (parallelFor).
  int64_t threads = 1;

  int64_t blockQ() const { return lanes * vectors; }
};

/// What one decoding kernel computes (FlashDecodeKernel.cpp): the operands
/// of FlashKernelConfig with at most kFlashDecodeMaxQueries queries (checked
/// by the caller) and static head dims.
struct FlashDecodeConfig {
  /// f32 lanes of the target's vectors: keys per vector of scores.
  int64_t lanes = 16;
  std::optional<float> scale;
  bool causal = false;
  std::optional<int64_t> window;
  bool hasMask = false;
  std::optional<MaskBlocks> maskBlocks;
  /// Static head dims of the queries/keys and of the values.
  int64_t headDim = 0, valueDim = 0;
  /// Threads the key chunks are made for and run on.
  int64_t threads = 1;
};

/// Most queries the decoding kernel takes, and its largest head dims.
constexpr int64_t kFlashDecodeMaxQueries = 16;
constexpr int64_t kFlashDecodeMaxHeadDim = 256;

/// The type of the kernels' operands (q, k, v, mask): 3-D, rows contiguous,
/// other strides and the offset dynamic, so that a slice of a KV cache is
/// passed without a copy.
inline MemRefType flashOperandType(MLIRContext *ctx) {
  int64_t dyn = ShapedType::kDynamic;
  return MemRefType::get({dyn, dyn, dyn}, Float32Type::get(ctx),
                         StridedLayoutAttr::get(ctx, dyn, {dyn, dyn, 1}));
}

/// Key block size of the kernel.
constexpr int64_t kFlashBlockK = 64;

/// Builds the kernel as a private function `name` at `b`'s insertion point
/// (in a module), on memrefs, with an scf.forall over the tasks.
func::FuncOp buildFlashKernel(OpBuilder &b, Location loc, StringRef name,
                              const FlashKernelConfig &config);

/// Builds the decoding kernel (keys on the vector lanes, key chunks over the
/// threads, partial softmaxes combined) with the same arguments as
/// buildFlashKernel without `split`: (q, k, v, [mask,] out).
func::FuncOp buildFlashDecodeKernel(OpBuilder &b, Location loc, StringRef name,
                                    const FlashDecodeConfig &config);

} // namespace mlir::transformer

#endif // TRANSFORMER_CODEGEN_CPU_FLASHATTENTION_H
