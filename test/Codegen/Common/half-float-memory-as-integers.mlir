// RUN: transformer-opt %s --transformer-half-float-memory-as-integers | FileCheck %s

// Masked loads and stores of bf16 and f16 vectors move i16 lanes between
// bitcasts; those of other types are left alone.
// CHECK-LABEL: llvm.func @copy_bf16
// CHECK-SAME:    (%[[SRC:.*]]: !llvm.ptr, %[[DST:.*]]: !llvm.ptr, %[[MASK:.*]]: vector<16xi1>, %[[PASS:.*]]: vector<16xbf16>)
// CHECK:         %[[PI:.*]] = llvm.bitcast %[[PASS]] : vector<16xbf16> to vector<16xi16>
// CHECK:         %[[LI:.*]] = llvm.intr.masked.load %[[SRC]], %[[MASK]], %[[PI]] {alignment = 2 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xi16>) -> vector<16xi16>
// CHECK:         %[[V:.*]] = llvm.bitcast %[[LI]] : vector<16xi16> to vector<16xbf16>
// CHECK:         %[[SI:.*]] = llvm.bitcast %[[V]] : vector<16xbf16> to vector<16xi16>
// CHECK:         llvm.intr.masked.store %[[SI]], %[[DST]], %[[MASK]] {alignment = 2 : i32} : vector<16xi16>, vector<16xi1> into !llvm.ptr
llvm.func @copy_bf16(%src: !llvm.ptr, %dst: !llvm.ptr, %mask: vector<16xi1>, %pass: vector<16xbf16>) {
  %v = llvm.intr.masked.load %src, %mask, %pass {alignment = 2 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xbf16>) -> vector<16xbf16>
  llvm.intr.masked.store %v, %dst, %mask {alignment = 2 : i32} : vector<16xbf16>, vector<16xi1> into !llvm.ptr
  llvm.return
}

// A load without pass-through values.
// CHECK-LABEL: llvm.func @load_f16
// CHECK:         %[[LI:.*]] = llvm.intr.masked.load %{{.*}}, %{{.*}} {alignment = 2 : i32} : (!llvm.ptr, vector<8xi1>) -> vector<8xi16>
// CHECK:         %[[V:.*]] = llvm.bitcast %[[LI]] : vector<8xi16> to vector<8xf16>
// CHECK:         llvm.return %[[V]]
llvm.func @load_f16(%src: !llvm.ptr, %mask: vector<8xi1>) -> vector<8xf16> {
  %v = llvm.intr.masked.load %src, %mask {alignment = 2 : i32} : (!llvm.ptr, vector<8xi1>) -> vector<8xf16>
  llvm.return %v : vector<8xf16>
}

// CHECK-LABEL: llvm.func @f32_untouched
// CHECK-NOT:     llvm.bitcast
// CHECK:         llvm.intr.masked.load %{{.*}} -> vector<8xf32>
llvm.func @f32_untouched(%src: !llvm.ptr, %mask: vector<8xi1>, %pass: vector<8xf32>) -> vector<8xf32> {
  %v = llvm.intr.masked.load %src, %mask, %pass {alignment = 4 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xf32>) -> vector<8xf32>
  llvm.return %v : vector<8xf32>
}

// A plain load and store of a vector whose lane count is not a power of two
// (which LLVM 22 cannot legalize with AVX-512 BF16) move i16 lanes.
// CHECK-LABEL: llvm.func @copy_tail_bf16
// CHECK-SAME:    (%[[SRC:.*]]: !llvm.ptr, %[[DST:.*]]: !llvm.ptr)
// CHECK:         %[[LI:.*]] = llvm.load %[[SRC]] {alignment = 2 : i64} : !llvm.ptr -> vector<17xi16>
// CHECK:         %[[V:.*]] = llvm.bitcast %[[LI]] : vector<17xi16> to vector<17xbf16>
// CHECK:         %[[SI:.*]] = llvm.bitcast %[[V]] : vector<17xbf16> to vector<17xi16>
// CHECK:         llvm.store %[[SI]], %[[DST]] {alignment = 2 : i64} : vector<17xi16>, !llvm.ptr
llvm.func @copy_tail_bf16(%src: !llvm.ptr, %dst: !llvm.ptr) {
  %v = llvm.load %src {alignment = 2 : i64} : !llvm.ptr -> vector<17xbf16>
  llvm.store %v, %dst {alignment = 2 : i64} : vector<17xbf16>, !llvm.ptr
  llvm.return
}

// A power-of-two vector that is only stored (a copy, here to two places)
// moves i16 lanes too; one that is computed with keeps its type, and so do
// the stores of computed values.
// CHECK-LABEL: llvm.func @copy_and_extend_f16
// CHECK-SAME:    (%[[SRC:.*]]: !llvm.ptr, %[[DST:.*]]: !llvm.ptr)
// CHECK:         %[[LI:.*]] = llvm.load %[[SRC]] {alignment = 2 : i64} : !llvm.ptr -> vector<16xi16>
// CHECK:         %[[V:.*]] = llvm.bitcast %[[LI]] : vector<16xi16> to vector<16xf16>
// CHECK:         %[[S1:.*]] = llvm.bitcast %[[V]] : vector<16xf16> to vector<16xi16>
// CHECK:         llvm.store %[[S1]], %[[DST]] {alignment = 2 : i64} : vector<16xi16>, !llvm.ptr
// CHECK:         %[[S2:.*]] = llvm.bitcast %[[V]] : vector<16xf16> to vector<16xi16>
// CHECK:         llvm.store %[[S2]], %[[SRC]] {alignment = 2 : i64} : vector<16xi16>, !llvm.ptr
// CHECK:         %[[W:.*]] = llvm.load %[[SRC]] {alignment = 2 : i64} : !llvm.ptr -> vector<16xf16>
// CHECK-NEXT:    %[[E:.*]] = llvm.fpext %[[W]] : vector<16xf16> to vector<16xf32>
// CHECK-NEXT:    %[[T:.*]] = llvm.fptrunc %[[E]] : vector<16xf32> to vector<16xf16>
// CHECK-NEXT:    llvm.store %[[T]], %[[DST]] {alignment = 2 : i64} : vector<16xf16>, !llvm.ptr
// CHECK-NEXT:    llvm.return %[[E]]
llvm.func @copy_and_extend_f16(%src: !llvm.ptr, %dst: !llvm.ptr) -> vector<16xf32> {
  %v = llvm.load %src {alignment = 2 : i64} : !llvm.ptr -> vector<16xf16>
  llvm.store %v, %dst {alignment = 2 : i64} : vector<16xf16>, !llvm.ptr
  llvm.store %v, %src {alignment = 2 : i64} : vector<16xf16>, !llvm.ptr
  %w = llvm.load %src {alignment = 2 : i64} : !llvm.ptr -> vector<16xf16>
  %e = llvm.fpext %w : vector<16xf16> to vector<16xf32>
  %t = llvm.fptrunc %e : vector<16xf32> to vector<16xf16>
  llvm.store %t, %dst {alignment = 2 : i64} : vector<16xf16>, !llvm.ptr
  llvm.return %e : vector<16xf32>
}

// A load that is also used otherwise (here returned) keeps its type.
// CHECK-LABEL: llvm.func @returned_bf16
// CHECK:         llvm.load %{{.*}} -> vector<16xbf16>
// CHECK-NEXT:    llvm.store %{{.*}} : vector<16xbf16>, !llvm.ptr
// CHECK-NEXT:    llvm.return
llvm.func @returned_bf16(%src: !llvm.ptr, %dst: !llvm.ptr) -> vector<16xbf16> {
  %v = llvm.load %src {alignment = 2 : i64} : !llvm.ptr -> vector<16xbf16>
  llvm.store %v, %dst {alignment = 2 : i64} : vector<16xbf16>, !llvm.ptr
  llvm.return %v : vector<16xbf16>
}
