//===- HostMemory.h - How the runner's process reuses freed memory -*- C++ -*-//
//
// Compiled functions allocate their temporaries and results with malloc. On
// glibc, a block above the mmap threshold (at most 32 MiB), or any block over
// 64 MiB requested from a thread other than the main one (the tools run on a
// large-stack worker thread), is a fresh mmap that free() unmaps again: every
// call then pays a page fault per 4 KiB it touches (about 11 us here), which
// for a GPT-2 decode step was most of its time.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_RUNNER_HOSTMEMORY_H
#define TRANSFORMER_RUNNER_HOSTMEMORY_H

namespace mlir::transformer::runner {

/// Makes the process keep the memory that compiled code frees, for the next
/// call to reuse, as a caching allocator would: one malloc arena for all
/// threads, no mmap-backed blocks, no trimming of the heap. Call it once at
/// the start of main(), before any thread exists. Returns false when the C
/// library offers no such control (the call then changes nothing).
bool keepFreedMemoryForReuse();

/// Returns the memory freed so far to the system (glibc's malloc_trim): the
/// compiler's working memory, once the code is compiled, so that it does not
/// stay resident beside the program's own buffers.
void releaseFreedMemory();

/// Drops from the process's resident memory the machine code of LLVM and
/// MLIR (the executable pages of libLLVM and libMLIR), once the program is
/// compiled: about 85 MiB after a JIT compile, which a run would otherwise
/// carry beside its weights. The pages are never written, so the kernel
/// reads them back from the library files if they run again; nothing is
/// unmapped. Returns the size of the code ranges dropped (0 where the system
/// offers no such control).
unsigned long long releaseCompilerCode();

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_RUNNER_HOSTMEMORY_H
