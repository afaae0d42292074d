//===- Passes.h - target-independent codegen passes -------------*- C++ -*-===//
//
// The lowering's passes over upstream dialects (linalg, tensor, memref,
// bufferization, the LLVM dialect): run-time checks, buffer deallocation,
// kernel outlining, the program's own transform scripts. None of them looks
// at a transformer op; the dialect's own rewrites are in
// Transformer/Transforms/Passes.h.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_CODEGEN_COMMON_PASSES_H
#define TRANSFORMER_CODEGEN_COMMON_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::transformer {

/// The unit argument attribute of a function that writes the argument's
/// buffer in place and returns it uncopied
/// (--transformer-return-in-place-arguments).
inline constexpr llvm::StringLiteral kInPlaceAttrName = "transformer.in_place";

/// A unit attribute on an op that --transformer-outline-kernels outlines as
/// a kernel of its own, with everything nested in it (vector code written on
/// tensors, such as the contraction prep's few-rows forms).
inline constexpr llvm::StringLiteral kKernelRootAttrName =
    "transformer.kernel_root";

/// A unit attribute on an op whose only user is a contraction: like a
/// linalg.transpose that feeds one, --transformer-outline-kernels puts it
/// into that contraction's kernel, where the CPU pipeline fuses it into the
/// cache tiles (a dequantized weight, made per tile).
inline constexpr llvm::StringLiteral kOutlineWithUserAttrName =
    "transformer.outline_with_user";

#define GEN_PASS_DECL
#include "Transformer/Codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Transformer/Codegen/Common/Passes.h.inc"

} // namespace mlir::transformer

#endif // TRANSFORMER_CODEGEN_COMMON_PASSES_H
