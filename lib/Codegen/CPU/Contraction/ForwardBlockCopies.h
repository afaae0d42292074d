//===- ForwardBlockCopies.h - Drop copies of packed blocks ------*- C++ -*-===//
//
// Internal to the CPU codegen library: a cleanup that transformer-cpu-codegen
// runs after its schedule.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_FORWARDBLOCKCOPIES_H
#define TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_FORWARDBLOCKCOPIES_H

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::transformer {

/// The schedule packs a batched B per k block: `transform.structured.promote`
/// copies the block a cache tile reads into a buffer of its own, then each
/// panel from there. Where B is already such a block (the transposed copy
/// of a matmul's B given as n x k, made per k block into a local buffer of
/// the same shape), that copy moves 128 KiB per k block for nothing. Each copy
/// loop nest under `root` that copies a whole local buffer (a
/// `memref.alloc` of static shape and identity layout) into a buffer of
/// the same type (the promotion's view) that nothing else writes, whose
/// readers all follow the copy in its block, with nothing between the copy
/// and them that writes the source, is removed: the readers read the source
/// instead, and the promotion's buffer goes if nothing else uses it.
void forwardBlockCopies(Operation *root);

} // namespace mlir::transformer

#endif // TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_FORWARDBLOCKCOPIES_H
