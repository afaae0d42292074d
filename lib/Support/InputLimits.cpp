//===- InputLimits.cpp - Limits on what the tools accept ------------------===//

#include "Transformer/Support/InputLimits.h"

#include "llvm/Support/thread.h"

using namespace mlir;

llvm::Error transformer::checkNestingDepth(llvm::StringRef text,
                                           unsigned maxDepth) {
  unsigned depth = 0, line = 1;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    switch (c) {
    case '\n':
      ++line;
      break;
    case '/':
      // A `//` comment runs to the end of the line.
      if (i + 1 < e && text[i + 1] == '/')
        while (i + 1 < e && text[i + 1] != '\n')
          ++i;
      break;
    case '"':
      // Skip a string literal, with its escapes.
      for (++i; i < e && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      if (++depth > maxDepth)
        return llvm::createStringError(
            "nesting deeper than %u levels at line %u", maxDepth, line);
      break;
    case '>':
      // `->` and `>=` are not closing brackets.
      if (i > 0 && text[i - 1] == '-')
        break;
      if (i + 1 < e && text[i + 1] == '=')
        break;
      [[fallthrough]];
    case ')':
    case ']':
    case '}':
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return llvm::Error::success();
}

int transformer::runWithLargeStack(const std::function<int()> &body) {
  int result = 1;
  llvm::thread worker(std::optional<unsigned>(kToolStackBytes),
                      [&] { result = body(); });
  worker.join();
  return result;
}
