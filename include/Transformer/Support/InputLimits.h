//===- InputLimits.h - Limits on what the tools accept ----------*- C++ -*-===//
//
// MLIR's parser and many walks recurse once per nesting level, so a file with
// tens of thousands of nested brackets or regions overflows the stack. The
// tools check the bracket depth of their input before parsing and run on a
// thread with a large stack.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_SUPPORT_INPUTLIMITS_H
#define TRANSFORMER_SUPPORT_INPUTLIMITS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>

namespace mlir::transformer {

/// Deepest bracket nesting ( `(`, `[`, `{`, `<` ) accepted in an input file.
constexpr unsigned kMaxNestingDepth = 1000;

/// Stack size of the thread the tools run on.
constexpr unsigned kToolStackBytes = 512u << 20;

/// Fails with `nesting deeper than N levels at line L` when brackets outside
/// comments and string literals nest deeper than `maxDepth`.
llvm::Error checkNestingDepth(llvm::StringRef text,
                              unsigned maxDepth = kMaxNestingDepth);

/// Runs `body` on a thread with a kToolStackBytes stack and returns its
/// result.
int runWithLargeStack(const std::function<int()> &body);

} // namespace mlir::transformer

#endif // TRANSFORMER_SUPPORT_INPUTLIMITS_H
