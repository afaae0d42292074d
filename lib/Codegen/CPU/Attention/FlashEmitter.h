//===- FlashEmitter.h - IR-building helpers of the flash kernels -*- C++
//-*-===//
//
// Small helpers shared by the flash attention kernel (FlashKernel.cpp) and
// the decoding kernel (FlashDecodeKernel.cpp): index and vector arithmetic on
// one builder, loops and branches with values, the exp2 polynomial, and the
// parallel loop over tasks.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_CODEGEN_CPU_FLASHEMITTER_H
#define TRANSFORMER_LIB_CODEGEN_CPU_FLASHEMITTER_H

#include "Transformer/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

#include <functional>

namespace mlir::transformer::flash {

constexpr float kLog2E = 1.4426950408889634f;

/// Small IR-building helpers on one builder and location.
struct Emitter {
  OpBuilder &b;
  Location loc;
  /// f32 lanes of the vectors the kernels compute on: the target's register
  /// width (16 with AVX-512, 8 with AVX2), so that no vector is split.
  int64_t lanes = 16;

  Type f32() { return b.getF32Type(); }
  VectorType vecType() { return VectorType::get({lanes}, f32()); }
  VectorType ivecType() { return VectorType::get({lanes}, b.getI32Type()); }
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value f(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value vf(float v) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vecType(), b.getF32FloatAttr(v)));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value ceilDiv(Value x, Value y) {
    return arith::CeilDivSIOp::create(b, loc, x, y);
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value sel(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value fsub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fma(Value x, Value y, Value acc) {
    return vector::FMAOp::create(b, loc, x, y, acc);
  }
  /// max without NaN handling: one vmaxps.
  Value fmax(Value x, Value y) {
    Value gt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, y);
    return sel(gt, x, y);
  }
  Value splat(Value s) {
    return vector::BroadcastOp::create(
        b, loc, VectorType::get({lanes}, s.getType()), s);
  }
  Value dim(Value m, int64_t i) { return memref::DimOp::create(b, loc, m, i); }
  Value load(Value m, ValueRange ix) {
    return memref::LoadOp::create(b, loc, m, ix);
  }
  void store(Value v, Value m, ValueRange ix) {
    memref::StoreOp::create(b, loc, v, m, ix);
  }
  Value vload(Value m, ValueRange ix) {
    return vector::LoadOp::create(b, loc, vecType(), m, ix);
  }
  void vstore(Value v, Value m, ValueRange ix) {
    vector::StoreOp::create(b, loc, v, m, ix);
  }
  Value toI32(Value i) {
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), i);
  }

  /// 2^x for x <= 0 (the only inputs here); exactly 0 below 2^-125, so that
  /// masked scores (-inf) and fully masked rows contribute nothing.
  Value exp2(Value x) {
    Value lo = vf(-125.0f);
    Value tooSmall =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, lo);
    Value xc = sel(tooSmall, lo, x);
    Value n = math::RoundEvenOp::create(b, loc, xc);
    Value r = fsub(xc, n); // [-0.5, 0.5]
    // Cephes exp2f: 2^r = 1 + r P(r).
    const float coeffs[] = {1.535336188319500e-4f, 1.339887440266574e-3f,
                            9.618437357674640e-3f, 5.550332471162809e-2f,
                            2.402264791363012e-1f, 6.931472028550421e-1f};
    Value p = vf(coeffs[0]);
    for (int i = 1; i < 6; ++i)
      p = fma(p, r, vf(coeffs[i]));
    p = fma(p, r, vf(1.0f));
    Value ni = arith::FPToSIOp::create(b, loc, ivecType(), n);
    Value shift = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(ivecType(), b.getI32IntegerAttr(23)));
    Value bits = arith::BitcastOp::create(b, loc, ivecType(), p);
    bits = arith::AddIOp::create(b, loc, bits,
                                 arith::ShLIOp::create(b, loc, ni, shift));
    Value result = arith::BitcastOp::create(b, loc, vecType(), bits);
    return sel(tooSmall, vf(0.0f), result);
  }

  using Body = std::function<SmallVector<Value>(Value, ValueRange)>;
  /// scf.for with iter_args; `body` returns the yielded values.
  SmallVector<Value> loop(Value lb, Value ub, Value step, ValueRange inits,
                          const Body &body) {
    auto op = scf::ForOp::create(
        b, loc, lb, ub, step, inits,
        [&](OpBuilder &nested, Location, Value iv, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(nested.getInsertionBlock());
          SmallVector<Value> results = body(iv, args);
          scf::YieldOp::create(b, loc, results);
        });
    return SmallVector<Value>(op.getResults());
  }
  using Branch = std::function<SmallVector<Value>()>;
  SmallVector<Value> ifElse(Value cond, const Branch &thenFn,
                            const Branch &elseFn) {
    auto build = [&](const Branch &fn) {
      return [&, fn](OpBuilder &nested, Location) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToEnd(nested.getInsertionBlock());
        scf::YieldOp::create(b, loc, fn());
      };
    };
    auto op = scf::IfOp::create(b, loc, cond, build(thenFn), build(elseFn));
    return SmallVector<Value>(op.getResults());
  }
  void ifThen(Value cond, const std::function<void()> &fn) {
    ifElse(
        cond,
        [&]() {
          fn();
          return SmallVector<Value>();
        },
        []() { return SmallVector<Value>(); });
  }
};

/// Runs `body` inside an scf.forall over `count` tasks, in an alloca scope.
inline void forall(Emitter &e, Value count,
                   const std::function<void(Value)> &body) {
  auto op = scf::ForallOp::create(e.b, e.loc, ArrayRef<OpFoldResult>{count},
                                  ValueRange{}, std::nullopt);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPoint(op.getBody()->getTerminator());
  auto scope = memref::AllocaScopeOp::create(e.b, e.loc, TypeRange{});
  Block *block = e.b.createBlock(&scope.getBodyRegion());
  memref::AllocaScopeReturnOp::create(e.b, e.loc, ValueRange{});
  e.b.setInsertionPoint(block->getTerminator());
  body(op.getInductionVars()[0]);
}

/// Runs `task` for each of `count` tasks on up to `threads` OpenMP threads,
/// after `perThread` (the buffers a thread reuses across its tasks). Each
/// thread of the team takes the next task from a shared counter until none
/// is left: the calling thread starts at once and does more tasks while the
/// others wake up (with a static split, a call would wait for the slowest
/// wake-up plus a full share of work). The team forks only when `flops`,
/// the kernel's work for its run-time sizes, reaches kMinThreadedFlops:
/// below that the calling thread runs every task itself (the `if` clause of
/// omp.parallel, a serialized region: no wake-up, no join); a decode step
/// at a short context or a prompt of a few tokens is a few microseconds of
/// work, less than waking a sleeping thread. With one thread, an scf.forall
/// over the tasks, which the pipeline turns into a loop.
inline void parallelTasks(Emitter &e, Value count, Value flops,
                          unsigned threads,
                          const std::function<void()> &perThread,
                          const std::function<void(Value)> &task) {
  if (threads <= 1)
    return forall(e, count, [&](Value t) {
      perThread();
      task(t);
    });
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Type i64 = b.getI64Type();
  Value counter = memref::AllocaOp::create(b, loc, MemRefType::get({}, i64));
  memref::StoreOp::create(
      b, loc, arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0)),
      counter, ValueRange{});
  Value count64 = arith::IndexCastOp::create(b, loc, i64, count);
  omp::ParallelOperands clauses;
  clauses.ifExpr =
      e.cmp(arith::CmpIPredicate::uge, flops, e.idx(kMinThreadedFlops));
  clauses.numThreads = arith::ConstantOp::create(
      b, loc, b.getI32IntegerAttr(static_cast<int32_t>(threads)));
  auto parallel = omp::ParallelOp::create(b, loc, clauses);
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&parallel.getRegion());
  omp::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&parallel.getRegion().front());
  auto scope = memref::AllocaScopeOp::create(b, loc, TypeRange{});
  Block *block = b.createBlock(&scope.getBodyRegion());
  memref::AllocaScopeReturnOp::create(b, loc, ValueRange{});
  b.setInsertionPoint(block->getTerminator());
  perThread();
  auto loop = scf::WhileOp::create(b, loc, TypeRange{i64}, ValueRange{});
  b.createBlock(&loop.getBefore());
  Value next = memref::AtomicRMWOp::create(
      b, loc, arith::AtomicRMWKind::addi,
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(1)), counter,
      ValueRange{});
  scf::ConditionOp::create(b, loc,
                           e.cmp(arith::CmpIPredicate::slt, next, count64),
                           ValueRange{next});
  Block *after = b.createBlock(&loop.getAfter(), {}, {i64}, {loc});
  // Each task in an alloca scope of its own, as the scf.forall's are.
  auto taskScope = memref::AllocaScopeOp::create(b, loc, TypeRange{});
  scf::YieldOp::create(b, loc);
  b.createBlock(&taskScope.getBodyRegion());
  memref::AllocaScopeReturnOp::create(b, loc, ValueRange{});
  b.setInsertionPoint(taskScope.getBodyRegion().front().getTerminator());
  task(arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                  after->getArgument(0)));
}

} // namespace mlir::transformer::flash

#endif // TRANSFORMER_LIB_CODEGEN_CPU_FLASHEMITTER_H
