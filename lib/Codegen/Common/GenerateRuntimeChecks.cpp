//===- GenerateRuntimeChecks.cpp - --transformer-generate-runtime-checks --===//
//
// Emits the run-time checks of upstream ops (RuntimeVerifiableOpInterface)
// with one-line messages that name the op and where it was written.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/Common/Passes.h"

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/IR/Location.h"
#include "mlir/Interfaces/RuntimeVerifiableOpInterface.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERGENERATERUNTIMECHECKSPASS
#include "Transformer/Codegen/Common/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;

namespace {
/// `linalg.generic at prog.mlir:3:8: <what failed>`: one line, as the
/// runtime library reports it after `run-time check failed: `.
std::string formatMessage(Operation *op, StringRef message) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName().getStringRef();
  if (auto fileLoc = op->getLoc()->findInstanceOf<FileLineColLoc>())
    os << " at " << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine()
       << ":" << fileLoc.getColumn();
  os << ": " << message;
  for (char &c : text)
    if (c == '\n')
      c = ' ';
  return text;
}

struct TransformerGenerateRuntimeChecksPass
    : transformer::impl::TransformerGenerateRuntimeChecksPassBase<
          TransformerGenerateRuntimeChecksPass> {
  void runOnOperation() override {
    // Collected first: the checks insert ops, some of which (memref.dim of a
    // view) are verifiable themselves and must not be checked again.
    SmallVector<RuntimeVerifiableOpInterface> ops;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      // A transform script is not run as code.
      if (isa_and_nonnull<transform::TransformDialect>(op->getDialect()))
        return WalkResult::skip();
      if (auto verifiable = dyn_cast<RuntimeVerifiableOpInterface>(op))
        ops.push_back(verifiable);
      return WalkResult::advance();
    });
    OpBuilder builder(&getContext());
    for (RuntimeVerifiableOpInterface op : ops) {
      builder.setInsertionPoint(op);
      op.generateRuntimeVerification(builder, op.getLoc(), formatMessage);
    }
  }
};
} // namespace
