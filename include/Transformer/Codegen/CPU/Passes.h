//===- Passes.h - CPU code generation passes --------------------*- C++ -*-===//
//
// Contractions at -O2 and up: a preparation pass that tags them (C++, on
// tensors) and a pass that applies the transform-dialect schedule (on
// memrefs). The schedule text is embedded from
// lib/Codegen/CPU/Contraction/Schedules/contraction.mlir.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_CODEGEN_CPU_PASSES_H
#define TRANSFORMER_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::transformer {

/// The smallest static row op (or fused row chain) split over the threads,
/// in elements; smaller ones stay on the calling thread (see isWorthThreads
/// in lib/Codegen/CPU/Rows/VectorizeRows.cpp for why 64K).
constexpr int64_t kMinThreadedRowElements = int64_t(1) << 16;

/// The fewest flops of a static contraction (a cache-tiled one or a few-rows
/// dot kernel) split over the threads; smaller ones run on the calling
/// thread. 2^20 flops are about 15 us of one core: a few times what waking
/// the other threads and joining them costs when they spin (KMP_BLOCKTIME),
/// and less than it costs when they sleep.
constexpr int64_t kMinThreadedFlops = int64_t(1) << 20;

/// Bytes per cache line on every x86 CPU we build for: the unit of the
/// software prefetches.
constexpr int64_t kCacheLineBytes = 64;

/// Whether the contraction `op` has kMinThreadedFlops of work or more (2
/// flops per point of its static iteration space), enough for the threads;
/// a dynamic size counts as enough.
inline bool isContractionWorthThreads(linalg::LinalgOp op) {
  int64_t flops = 2;
  for (int64_t range : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range) || range >= kMinThreadedFlops)
      return true;
    flops *= range;
    if (flops >= kMinThreadedFlops)
      return true;
  }
  return false;
}

#define GEN_PASS_DECL
#include "Transformer/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Transformer/Codegen/CPU/Passes.h.inc"

/// The attribute that tags a contraction for the CPU schedule ("mnk" or
/// "bmnk").
constexpr llvm::StringLiteral kContractionAttrName = "transformer.contraction";

/// The text of the built-in contraction schedule (a module with
/// `@__transform_main`), as embedded from Schedules/contraction.mlir.
llvm::StringRef getDefaultContractionSchedule();

} // namespace mlir::transformer

#endif // TRANSFORMER_CODEGEN_CPU_PASSES_H
