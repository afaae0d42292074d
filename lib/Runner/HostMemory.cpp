//===- HostMemory.cpp - How the runner's process reuses freed memory ------===//

#include "Transformer/Runner/HostMemory.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib> // Defines __GLIBC__ where glibc is the C library.

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__linux__)
#include <cinttypes>
#include <cstdio>
#include <dlfcn.h>
#include <string_view>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <utility>
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
/// The device and inode of the file that holds the code at `address`, or
/// (0, 0) when none does.
std::pair<dev_t, ino_t> getFileOfCode(void *address) {
  Dl_info info;
  struct stat status;
  if (!dladdr(address, &info) || !info.dli_fname ||
      stat(info.dli_fname, &status) != 0)
    return {0, 0};
  return {status.st_dev, status.st_ino};
}
} // namespace
#endif

unsigned long long mlir::transformer::runner::releaseCompilerCode() {
#if defined(__linux__)
  // A function of each library, to find its file by address.
  std::vector<std::pair<dev_t, ino_t>> libraries = {
      getFileOfCode(reinterpret_cast<void *>(&llvm::sys::getHostCPUName)),
      getFileOfCode(reinterpret_cast<void *>(
          static_cast<mlir::InFlightDiagnostic (*)(mlir::Location)>(
              &mlir::emitError)))};
  FILE *maps = std::fopen("/proc/self/maps", "r");
  if (!maps)
    return 0;
  unsigned long long released = 0;
  char line[4096];
  while (std::fgets(line, sizeof(line), maps)) {
    uintptr_t start, end;
    char perms[5];
    unsigned long long offset, inode;
    unsigned major, minor;
    if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s %llx %x:%x %llu",
                    &start, &end, perms, &offset, &major, &minor, &inode) != 7)
      continue;
    // Only code: a library's text is mapped private and never written
    // (position-independent code has no text relocations), so dropping its
    // pages loses nothing. Its data and relocated read-only data are not
    // touched.
    if (std::string_view(perms) != "r-xp")
      continue;
    for (auto [device, libraryInode] : libraries) {
      if (libraryInode == 0 || libraryInode != inode ||
          device != makedev(major, minor))
        continue;
      if (madvise(reinterpret_cast<void *>(start), end - start,
                  MADV_DONTNEED) == 0)
        released += end - start;
      break;
    }
  }
  std::fclose(maps);
  return released;
#else
  return 0;
#endif
}
