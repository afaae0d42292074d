//===- Runtime.c - The transformer-mlir runtime library -------------------===//
//
// Plain C with no dependency beyond libc, so that any JIT or AOT user of the
// compiled code can load it.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Runtime/Runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static _Thread_local TransformerRuntimeErrorHandler errorHandler;
static _Thread_local void *errorHandlerData;

TransformerRuntimeErrorHandler
transformerRuntimeSetErrorHandler(TransformerRuntimeErrorHandler handler,
                                  void *userData) {
  TransformerRuntimeErrorHandler previous = errorHandler;
  errorHandler = handler;
  errorHandlerData = userData;
  return previous;
}

void transformerRuntimeError(const char *format, ...) {
  char message[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  if (errorHandler)
    errorHandler(message, errorHandlerData);
  fflush(stdout);
  fprintf(stderr, "Error: run-time check failed: %s\n", message);
  fflush(stderr);
  exit(1);
}
