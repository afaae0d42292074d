// RUN: transformer-opt %s --transformer-cpu-allocate-weight-cache --split-input-file | FileCheck %s

// The weight cache's copy (an uninitialized global) becomes a null pointer,
// and each use of its address the buffer the pointer holds, mapped on first
// use by @__transformer_weight_cache_buffer. The key (initialized) and
// other globals stay as they are.
// CHECK-DAG: llvm.mlir.global private @__transformer_weight_cache() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.ptr {
// CHECK-DAG:   %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-DAG:   llvm.return %[[NULL]] : !llvm.ptr
// CHECK-DAG: llvm.mlir.global private @__transformer_weight_cache_key(dense<0> : tensor<2xi64>) {addr_space = 0 : i32} : !llvm.array<2 x i64>
// CHECK-DAG: llvm.mlir.global private @other() {addr_space = 0 : i32} : !llvm.array<16 x i8>
// CHECK-DAG: llvm.func @mmap(!llvm.ptr, i64, i32, i32, i32, i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @madvise(!llvm.ptr, i64, i32) -> i32
// CHECK-DAG: llvm.func @munmap(!llvm.ptr, i64) -> i32
// CHECK-DAG: llvm.func @transformerRuntimeError(!llvm.ptr, ...)
// CHECK-LABEL: llvm.func @use(
// CHECK: %[[SLOT:.*]] = llvm.mlir.addressof @__transformer_weight_cache : !llvm.ptr
// CHECK: %[[SIZE:.*]] = llvm.mlir.constant(4096 : i64) : i64
// CHECK: %[[BUF:.*]] = llvm.call @__transformer_weight_cache_buffer(%[[SLOT]], %[[SIZE]]) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK: llvm.getelementptr %[[BUF]][1]
// CHECK: llvm.mlir.addressof @other
// CHECK-NOT: llvm.call
// CHECK: llvm.return
// CHECK-LABEL: llvm.func private @__transformer_weight_cache_buffer(
// CHECK-SAME: %[[S:.*]]: !llvm.ptr, %[[N:.*]]: i64) -> !llvm.ptr
// CHECK: %[[P:.*]] = llvm.load %[[S]] atomic acquire {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.cond_br %{{.*}}, ^[[MAP:.*]], ^[[DONE:.*]](%[[P]] : !llvm.ptr)
// CHECK: ^[[MAP]]:
// PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS.
// CHECK-DAG: %[[RW:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-DAG: %[[FLAGS:.*]] = llvm.mlir.constant(34 : i32) : i32
// CHECK: %[[M:.*]] = llvm.call @mmap(%{{.*}}, %[[N]], %[[RW]], %[[FLAGS]], %{{.*}}, %{{.*}})
// CHECK: llvm.call @transformerRuntimeError(%{{.*}}, %[[N]]) vararg
// CHECK: llvm.unreachable
// MADV_HUGEPAGE.
// CHECK: %[[HUGE:.*]] = llvm.mlir.constant(14 : i32) : i32
// CHECK: llvm.call @madvise(%[[M]], %[[N]], %[[HUGE]])
// CHECK: llvm.cmpxchg %[[S]], %{{.*}}, %[[M]] acq_rel acquire
// CHECK: llvm.call @munmap(%[[M]], %[[N]])
// CHECK: ^[[DONE]](%[[R:.*]]: !llvm.ptr):
// CHECK: llvm.return %[[R]] : !llvm.ptr
llvm.mlir.global private @__transformer_weight_cache() {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<4096 x i8> {
  %0 = llvm.mlir.undef : !llvm.array<4096 x i8>
  llvm.return %0 : !llvm.array<4096 x i8>
}
llvm.mlir.global private @__transformer_weight_cache_key(dense<0> : tensor<2xi64>) {addr_space = 0 : i32} : !llvm.array<2 x i64>
llvm.mlir.global private @other() {addr_space = 0 : i32} : !llvm.array<16 x i8> {
  %0 = llvm.mlir.undef : !llvm.array<16 x i8>
  llvm.return %0 : !llvm.array<16 x i8>
}
llvm.func @use() -> !llvm.ptr {
  %0 = llvm.mlir.addressof @__transformer_weight_cache : !llvm.ptr
  %1 = llvm.getelementptr %0[1] : (!llvm.ptr) -> !llvm.ptr, i8
  %2 = llvm.mlir.addressof @other : !llvm.ptr
  llvm.return %1 : !llvm.ptr
}

// -----

// No cache: nothing changes, and nothing is declared.
// CHECK-NOT: llvm.func @mmap
// CHECK-NOT: __transformer_weight_cache_buffer
// CHECK-LABEL: llvm.func @plain(
llvm.func @plain() {
  llvm.return
}
