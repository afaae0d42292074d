// RUN: transformer-opt %s --transformer-cpu-allocate-weight-cache --verify-diagnostics -o /dev/null

// A module whose own @mmap is not the C function cannot have the cache
// mapped: an error, not a call of the wrong symbol.
llvm.mlir.global private @__transformer_weight_cache() {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<64 x i8> {
  %0 = llvm.mlir.undef : !llvm.array<64 x i8>
  llvm.return %0 : !llvm.array<64 x i8>
}
// expected-error @below {{@mmap is not the C function the weight cache calls}}
llvm.mlir.global private @mmap() {addr_space = 0 : i32} : i64
llvm.func @use() -> !llvm.ptr {
  %0 = llvm.mlir.addressof @__transformer_weight_cache : !llvm.ptr
  llvm.return %0 : !llvm.ptr
}
