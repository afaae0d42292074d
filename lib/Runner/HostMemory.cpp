//===- HostMemory.cpp - How the runner's process reuses freed memory ------===//

#include "Transformer/Runner/HostMemory.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib> // Defines __GLIBC__ where glibc is the C library.

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__linux__)
#include <cinttypes>
#include <cstdio>
#include <string>
#include <sys/mman.h>
#include <vector>
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

#if defined(__linux__)
namespace {
/// One line of /proc/self/maps: an address range, its permissions and the
/// file mapped there (device and inode as the kernel prints them).
struct Mapping {
  uintptr_t start, end;
  std::string perms;
  unsigned major, minor;
  unsigned long long inode;
};

std::vector<Mapping> readOwnMappings() {
  std::vector<Mapping> mappings;
  FILE *maps = std::fopen("/proc/self/maps", "r");
  if (!maps)
    return mappings;
  char line[4096];
  while (std::fgets(line, sizeof(line), maps)) {
    Mapping mapping;
    char perms[5];
    unsigned long long offset;
    if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s %llx %x:%x %llu",
                    &mapping.start, &mapping.end, perms, &offset,
                    &mapping.major, &mapping.minor, &mapping.inode) != 7)
      continue;
    mapping.perms = perms;
    mappings.push_back(std::move(mapping));
  }
  std::fclose(maps);
  return mappings;
}
} // namespace
#endif

unsigned long long mlir::transformer::runner::releaseCompilerCode() {
#if defined(__linux__)
  std::vector<Mapping> mappings = readOwnMappings();
  // Each library is the file mapped where one of its functions is: the
  // device and inode as the same maps print them (stat() of the library's
  // path can name another device, on btrfs or overlayfs).
  std::vector<const Mapping *> libraries;
  for (auto address :
       {reinterpret_cast<uintptr_t>(&llvm::sys::getHostCPUName),
        reinterpret_cast<uintptr_t>(
            static_cast<mlir::InFlightDiagnostic (*)(mlir::Location)>(
                &mlir::emitError))})
    for (const Mapping &mapping : mappings)
      if (mapping.start <= address && address < mapping.end &&
          mapping.inode != 0)
        libraries.push_back(&mapping);
  unsigned long long released = 0;
  for (const Mapping &mapping : mappings) {
    // Only code: a library's text is mapped private and never written
    // (position-independent code has no text relocations), so dropping its
    // pages loses nothing. Its data and relocated read-only data are not
    // touched.
    if (mapping.perms != "r-xp")
      continue;
    if (llvm::none_of(libraries, [&](const Mapping *library) {
          return library->inode == mapping.inode &&
                 library->major == mapping.major &&
                 library->minor == mapping.minor;
        }))
      continue;
    if (madvise(reinterpret_cast<void *>(mapping.start),
                mapping.end - mapping.start, MADV_DONTNEED) == 0)
      released += mapping.end - mapping.start;
  }
  return released;
#else
  return 0;
#endif
}
