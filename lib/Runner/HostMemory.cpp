//===- HostMemory.cpp - How the runner's process reuses freed memory ------===//

#include "Transformer/Runner/HostMemory.h"

#include <cstdlib> // Defines __GLIBC__ where glibc is the C library.

#if defined(__GLIBC__)
#include <malloc.h>
#endif

bool mlir::transformer::runner::keepFreedMemoryForReuse() {
#if defined(__GLIBC__)
  // The same settings as GLIBC_TUNABLES=glibc.malloc.mmap_max=0:
  // glibc.malloc.trim_threshold=..., which bench/ gives the baselines, plus a
  // single arena: a non-main arena maps every block over 64 MiB on its own,
  // whatever mmap_max says.
  bool ok = mallopt(M_ARENA_MAX, 1) == 1;
  ok &= mallopt(M_MMAP_MAX, 0) == 1;
  ok &= mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
  ok &= mallopt(M_TOP_PAD, 64 << 20) == 1;
  return ok;
#else
  return false;
#endif
}

void mlir::transformer::runner::releaseFreedMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}
