// RUN: transformer-opt --transformer-lower-runtime-checks --split-input-file --verify-diagnostics %s | FileCheck %s

// A marked check of the lowering: its prints and assert become one call of
// the runtime with a printf format and the values (i32 widened to i64).
// CHECK: llvm.mlir.global internal constant @[[MSG:[a-z_0-9]+]]("transformer.matmul: K differs (100%% sure) (lhs K = %lld, rhs K = %lld)\00")
// CHECK: llvm.func @transformerRuntimeError(!llvm.ptr, ...)
// CHECK: func.func @marked
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: %[[LHS:.*]] = arith.index_cast
// CHECK: %[[RHS:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK-NEXT: %[[ADDR:.*]] = llvm.mlir.addressof @[[MSG]]
// CHECK-NEXT: %[[PTR:.*]] = llvm.getelementptr %[[ADDR]]
// CHECK-NEXT: llvm.call @transformerRuntimeError(%[[PTR]], %[[LHS]], %[[RHS]]) vararg(!llvm.func<void (ptr, ...)>)
// CHECK-NEXT: }
// CHECK-NOT: transformer.runtime_check
// CHECK-NOT: vector.print
// CHECK-NOT: cf.assert
func.func @marked(%failed: i1, %lhs: index, %rhs: i32) {
  scf.if %failed {
    vector.print str " (lhs K = "
    %l = arith.index_cast %lhs : index to i64
    vector.print %l : i64 punctuation <no_punctuation>
    vector.print str ", rhs K = "
    vector.print %rhs : i32 punctuation <no_punctuation>
    vector.print str ")"
    %false = arith.constant false
    cf.assert %false, "transformer.matmul: K differs (100% sure)" {transformer.runtime_check}
  }
  return
}

// -----

// Two checks on the same condition, merged into one scf.if by the
// canonicalizer (which drops the if's attributes): each marked assert takes
// the prints that precede it.
// CHECK-DAG: llvm.mlir.global internal constant @[[M1:[a-z_0-9]+]]("first (a = %lld)\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[M2:[a-z_0-9]+]]("second (b = %lld)\00")
// CHECK: func.func @merged
// CHECK-SAME: (%{{.*}}: i1, %[[A:.*]]: i64, %[[B:.*]]: i64)
// CHECK: scf.if
// CHECK: llvm.mlir.addressof @[[M1]]
// CHECK: llvm.call @transformerRuntimeError(%{{.*}}, %[[A]])
// CHECK: llvm.mlir.addressof @[[M2]]
// CHECK: llvm.call @transformerRuntimeError(%{{.*}}, %[[B]])
// CHECK-NOT: vector.print
// CHECK-NOT: cf.assert
func.func @merged(%failed: i1, %a: i64, %b: i64) {
  scf.if %failed {
    vector.print str " (a = "
    vector.print %a : i64 punctuation <no_punctuation>
    vector.print str ")"
    %false = arith.constant false
    cf.assert %false, "first" {transformer.runtime_check}
    vector.print str " (b = "
    vector.print %b : i64 punctuation <no_punctuation>
    vector.print str ")"
    cf.assert %false, "second" {transformer.runtime_check}
  }
  return
}

// -----

// A user's vector.print outside a marked check stays as it is; a bare
// cf.assert becomes a guarded call.
// CHECK-LABEL: func.func @user
// CHECK: vector.print %{{.*}} : f32
// CHECK: %[[NOT:.*]] = arith.xori %{{.*}}, %true
// CHECK: scf.if %[[NOT]] {
// CHECK: llvm.call @transformerRuntimeError(%{{.*}}) vararg
func.func @user(%ok: i1, %x: f32) {
  vector.print %x : f32
  cf.assert %ok, "user check"
  return
}

// -----

// The runtime function's name is reserved.
// expected-error@+1 {{@transformerRuntimeError is reserved for the transformer runtime library}}
func.func private @transformerRuntimeError(i64)
func.func @clash(%ok: i1) {
  cf.assert %ok, "x"
  return
}
