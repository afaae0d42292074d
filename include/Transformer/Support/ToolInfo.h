//===- ToolInfo.h - Version and crash banner of the tools -------*- C++ -*-===//
//
// What every tool of the project says about itself: `--version` names the
// project and its version (and the LLVM it is built on), and the banner
// printed on a crash points at this project rather than at LLVM's tracker.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_SUPPORT_TOOLINFO_H
#define TRANSFORMER_SUPPORT_TOOLINFO_H

#include "llvm/ADT/StringRef.h"

namespace mlir::transformer {

/// The project's version, e.g. `0.1.0`.
llvm::StringRef getTransformerVersion();

/// Installs the `--version` printer and the crash banner for `toolName`.
/// Call before parsing the command line.
void installToolInfo(llvm::StringRef toolName);

} // namespace mlir::transformer

#endif // TRANSFORMER_SUPPORT_TOOLINFO_H
