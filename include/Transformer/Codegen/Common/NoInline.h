//===- NoInline.h - Functions that stay functions ---------------*- C++ -*-===//
//
// Functions that codegen makes so that many callers share one body (the
// kernels of --transformer-outline-kernels, the weight transposes of
// --transformer-cpu-cache-constant-weights) must not be copied back into
// their callers by either inliner.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_CODEGEN_COMMON_NOINLINE_H
#define TRANSFORMER_CODEGEN_COMMON_NOINLINE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::transformer {

/// Keeps `func` out of MLIR's inliner (`no_inline`) and LLVM's: func-to-llvm
/// keeps a `passthrough` attribute but drops `no_inline`.
inline void markNoInline(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  func.setNoInline(true);
  func->setAttr("passthrough",
                ArrayAttr::get(ctx, {StringAttr::get(ctx, "noinline")}));
}

} // namespace mlir::transformer

#endif // TRANSFORMER_CODEGEN_COMMON_NOINLINE_H
