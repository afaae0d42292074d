//===- Runtime.h - The transformer-mlir runtime library -----------*- C -*-===//
//
// libTransformerRuntime.so: the few C functions that code compiled by the
// transformer-mlir pipeline calls. A failed run-time check (a dynamic size
// that contradicts another, a token id outside the embedding table, a failed
// cf.assert) calls transformerRuntimeError; nothing else in the program's
// view changes, and standard symbols (puts, abort, the vector.print helpers)
// keep their standard meaning.
//
// Without a handler, transformerRuntimeError prints
// `Error: run-time check failed: <message>` on stderr and exits with status
// 1, so that programs run by mlir-runner with
// `--shared-libs=libTransformerRuntime.so` report the failure the same way.
// transformer-run installs a handler that unwinds back to the runner.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_RUNTIME_RUNTIME_H
#define TRANSFORMER_RUNTIME_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TRANSFORMER_RUNTIME_EXPORT __attribute__((visibility("default")))

/// Reports a failed run-time check. `format` is a printf format whose only
/// conversions are `%lld` (one int64_t value each) and `%%`; the compiled
/// code passes the values involved. Calls the installed handler with the
/// formatted message; without one (or when the handler returns), prints the
/// message and exits with status 1. Never returns.
TRANSFORMER_RUNTIME_EXPORT void transformerRuntimeError(const char *format,
                                                        ...);

/// Receives the formatted message of a failed check. A handler that wants
/// the program to go on elsewhere must not return (e.g. it longjmps to a
/// point set up before calling the compiled code).
typedef void (*TransformerRuntimeErrorHandler)(const char *message,
                                               void *userData);

/// Installs `handler` (NULL for the default: print and exit) for the calling
/// thread; returns the previous one.
TRANSFORMER_RUNTIME_EXPORT TransformerRuntimeErrorHandler
transformerRuntimeSetErrorHandler(TransformerRuntimeErrorHandler handler,
                                  void *userData);

#ifdef __cplusplus
}
#endif

#endif // TRANSFORMER_RUNTIME_RUNTIME_H
