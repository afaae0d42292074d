//===- FlashAttention.cpp - transformer.attention as a flash kernel -------===//
//
// --transformer-cpu-flash-attention: replaces each transformer.attention on
// ranked f32 tensors by a call to a flash kernel (FlashKernel.cpp) on the
// operands' buffers, with the run-time shape checks of the generic lowering.
// Runs on tensors, before --lower-transformer; forms it does not take (a
// mask that broadcasts over some batch dims only) keep the generic lowering.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/FlashAttention.h"
#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/Codegen/CPU/Target/CPUTarget.h"
#include "Transformer/IR/TransformerOps.h"

#include "LoweringUtils.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERCPUFLASHATTENTIONPASS
#include "Transformer/Codegen/CPU/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

namespace {

/// How a mask operand maps onto the kernel's [1 or BH, Sq, Sk] view.
enum class MaskForm { None, Shared, PerBatch, Unsupported };

MaskForm classifyMask(AttentionOp op) {
  Value mask = op.getMask();
  if (!mask)
    return MaskForm::None;
  auto m = dyn_cast<RankedTensorType>(mask.getType());
  auto q = cast<RankedTensorType>(op.getQuery().getType());
  if (!m || m.getRank() < 2)
    return MaskForm::Unsupported;
  if (m.getRank() == 2)
    return MaskForm::Shared;
  if (m.getRank() != q.getRank())
    return MaskForm::Unsupported;
  bool allOne = true, allFull = true;
  for (int64_t i = 0; i + 2 < m.getRank(); ++i) {
    allOne &= m.getDimSize(i) == 1;
    allFull &= m.getDimSize(i) != 1 || q.getDimSize(i) == 1;
  }
  if (allOne)
    return MaskForm::Shared;
  return allFull ? MaskForm::PerBatch : MaskForm::Unsupported;
}

bool isSupported(AttentionOp op) {
  auto f32Ranked = [](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.getElementType().isF32() && t.getRank() >= 2;
  };
  if (!f32Ranked(op.getQuery()) || !f32Ranked(op.getKey()) ||
      !f32Ranked(op.getValue()) || !f32Ranked(op.getResult()))
    return false;
  int64_t rank = cast<RankedTensorType>(op.getQuery().getType()).getRank();
  for (Value v : {op.getKey(), op.getValue(), op.getResult()})
    if (cast<RankedTensorType>(v.getType()).getRank() != rank)
      return false;
  if (op.getMask() && !f32Ranked(op.getMask()))
    return false;
  return classifyMask(op) != MaskForm::Unsupported;
}

/// `buffer` viewed as a 3-D memref: batch dims collapsed into one, or a unit
/// batch dim added; cast to `type`.
Value asBuffer3D(OpBuilder &b, Location loc, Value buffer, MemRefType type3) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t rank = type.getRank();
  if (rank == 2) {
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1)};
    for (int64_t i = 0; i < 2; ++i)
      sizes.push_back(
          type.isDynamicDim(i)
              ? OpFoldResult(memref::DimOp::create(b, loc, buffer, i))
              : OpFoldResult(b.getIndexAttr(type.getDimSize(i))));
    buffer = memref::ExpandShapeOp::create(
        b, loc, {1, type.getDimSize(0), type.getDimSize(1)}, buffer,
        {{0, 1}, {2}}, sizes);
  } else if (rank > 3) {
    ReassociationIndices batch;
    for (int64_t i = 0; i + 2 < rank; ++i)
      batch.push_back(i);
    buffer = memref::CollapseShapeOp::create(b, loc, buffer,
                                             {batch, {rank - 2}, {rank - 1}});
  }
  return memref::CastOp::create(b, loc, type3, buffer);
}

/// The buffer of an operand, without a copy when its rows are contiguous
/// (a slice of a KV cache): any offset and outer strides.
Value bufferOf(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  int64_t dyn = ShapedType::kDynamic;
  SmallVector<int64_t> strides(type.getRank(), dyn);
  strides.back() = 1;
  auto memref =
      MemRefType::get(type.getShape(), type.getElementType(),
                      StridedLayoutAttr::get(b.getContext(), dyn, strides));
  Value buffer = bufferization::ToBufferOp::create(b, loc, memref, tensor,
                                                   /*read_only=*/true);
  return asBuffer3D(b, loc, buffer, flashOperandType(b.getContext()));
}

/// The run-time checks of the generic lowering (Attention.cpp), plus the
/// mask's sizes, which the kernel reads without bounds.
void emitShapeChecks(OpBuilder &b, Location loc, AttentionOp op) {
  using namespace lowering;
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  int64_t rank = cast<RankedTensorType>(q.getType()).getRank();
  auto dim = [&](Value value, int64_t i) { return dimSize(b, loc, value, i); };
  assertAttentionShapes(b, loc, q, k, v);
  Value mask = op.getMask();
  if (!mask)
    return;
  auto m = cast<RankedTensorType>(mask.getType());
  int64_t mr = m.getRank();
  auto check = [&](int64_t md, Value ref, int64_t rd, StringRef what) {
    if (m.getDimSize(md) == 1)
      return; // broadcasts
    assertEqualSizes(b, loc, dim(mask, md), dim(ref, rd),
                     "transformer.attention: the mask's " + what +
                         " does not match (dynamic dimensions do not "
                         "broadcast)",
                     "mask", "expected");
  };
  check(mr - 2, q, rank - 2, "query dimension");
  check(mr - 1, k, rank - 2, "key dimension");
  if (mr == rank)
    for (int64_t i = 0; i + 2 < rank; ++i)
      check(i, q, i, "batch dimension " + std::to_string(i));
}

/// Keys per step of the flash kernel's register tiles: the largest power of
/// two, at most 8, whose `keyRows` x `vectors` accumulators leave registers
/// for the `vectors` query vectors and a broadcast key (4 x 4 of 32 zmm,
/// 2 x 4 of 16 ymm: with 4 x 4 on AVX2 the tile spilled and ran at half the
/// speed).
int64_t keyRowsFor(int64_t vectors, int64_t registers) {
  int64_t rows = 1;
  while (rows < 8 && 2 * rows * vectors + vectors + 1 <= registers)
    rows *= 2;
  return rows;
}

std::string configKey(const FlashKernelConfig &c) {
  std::string key = std::to_string(c.lanes) + "x" + std::to_string(c.vectors) +
                    "x" + std::to_string(c.keyRows) + "/" +
                    (c.scale ? std::to_string(*c.scale) : "d") + "/" +
                    std::to_string(c.causal) + "/" +
                    (c.window ? std::to_string(*c.window) : "-") + "/" +
                    std::to_string(c.hasMask) + "/" + std::to_string(c.split) +
                    "/" + std::to_string(c.threads);
  if (c.maskBlocks)
    for (const std::string &row : c.maskBlocks->rows)
      key += "/" + row;
  return key;
}

/// The decoding kernel's configuration, or std::nullopt when the op does
/// not fit it (a dynamic or too large head dim, a static Sq > 16).
std::optional<FlashDecodeConfig> decodeConfig(AttentionOp op, unsigned nThreads,
                                              int64_t lanes) {
  auto qType = cast<RankedTensorType>(op.getQuery().getType());
  auto vType = cast<RankedTensorType>(op.getValue().getType());
  auto kType = cast<RankedTensorType>(op.getKey().getType());
  int64_t rank = qType.getRank();
  int64_t sq = qType.getDimSize(rank - 2), d = qType.getDimSize(rank - 1),
          dv = vType.getDimSize(rank - 1);
  auto fits = [](int64_t n) {
    return !ShapedType::isDynamic(n) && n >= 1 && n <= kFlashDecodeMaxHeadDim;
  };
  if (!fits(d) || !fits(dv) ||
      (!ShapedType::isDynamic(sq) && sq > kFlashDecodeMaxQueries))
    return std::nullopt;
  FlashDecodeConfig config;
  config.scale = op.getEffectiveScale();
  config.causal = op.getCausal();
  if (std::optional<uint64_t> w = op.getWindow())
    config.window = static_cast<int64_t>(*w);
  config.hasMask = op.getMask() != nullptr;
  config.headDim = d;
  config.valueDim = dv;
  config.threads = nThreads;
  config.lanes = lanes;
  // The table's first row covers every query; it must have one class per
  // key block of 64.
  int64_t sk = kType.getDimSize(rank - 2);
  if (config.hasMask && !ShapedType::isDynamic(sk))
    if (std::optional<MaskBlocks> blocks =
            MaskBlocks::fromAttr(op->getAttr(kMaskBlocksAttrName)))
      if (blocks->blockK == kFlashBlockK &&
          blocks->blockQ >= kFlashDecodeMaxQueries && !blocks->rows.empty() &&
          static_cast<int64_t>(blocks->rows.front().size()) ==
              (sk + kFlashBlockK - 1) / kFlashBlockK)
        config.maskBlocks = blocks;
  return config;
}

std::string decodeKey(const FlashDecodeConfig &c) {
  std::string key = "decode/" + std::to_string(c.lanes) + "/" +
                    std::to_string(c.headDim) + "/" +
                    std::to_string(c.valueDim) + "/" +
                    (c.scale ? std::to_string(*c.scale) : "d") + "/" +
                    std::to_string(c.causal) + "/" +
                    (c.window ? std::to_string(*c.window) : "-") + "/" +
                    std::to_string(c.hasMask) + "/" + std::to_string(c.threads);
  if (c.maskBlocks)
    key += "/" + c.maskBlocks->rows.front();
  return key;
}

struct FlashAttentionPass
    : transformer::impl::TransformerCPUFlashAttentionPassBase<
          FlashAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<AttentionOp> ops;
    module.walk([&](AttentionOp op) {
      if (isSupported(op))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    CPUTarget target = CPUTarget::forOp(module);
    lanes = target.f32Lanes();
    registers = target.vectorRegisters;
    unsigned effectiveThreads =
        threads > 0 ? threads : std::max(1u, target.threads);
    SymbolTable symbols(module);
    llvm::StringMap<func::FuncOp> kernels;
    for (AttentionOp op : ops)
      rewrite(op, symbols, kernels, effectiveThreads);
  }

  /// f32 lanes and vector registers of the target.
  int64_t lanes = 16, registers = 32;

  /// The kernel recorded under `key`, or the one `build` makes at the end
  /// of the module (every attention op of one configuration shares it).
  func::FuncOp
  getOrBuildKernel(const std::string &key, SymbolTable &symbols,
                   llvm::StringMap<func::FuncOp> &kernels,
                   function_ref<func::FuncOp(OpBuilder &, Location)> build) {
    auto it = kernels.find(key);
    if (it != kernels.end())
      return it->second;
    ModuleOp module = getOperation();
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    func::FuncOp kernel = build(b, module.getLoc());
    symbols.insert(kernel); // renames on clash
    kernels[key] = kernel;
    return kernel;
  }

  func::FuncOp getKernel(const FlashKernelConfig &config, SymbolTable &symbols,
                         llvm::StringMap<func::FuncOp> &kernels) {
    return getOrBuildKernel(
        configKey(config), symbols, kernels, [&](OpBuilder &b, Location loc) {
          return buildFlashKernel(b, loc, "__transformer_flash_attention",
                                  config);
        });
  }

  /// Scratch buffers of the split kernel: chunks of keys so that about 4
  /// tasks per thread exist.
  void appendSplitBuffers(OpBuilder &b, Location loc,
                          const FlashKernelConfig &config,
                          SmallVector<Value> &args, unsigned nThreads) {
    auto c = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value bh = memref::DimOp::create(b, loc, args[0], 0);
    Value sq = memref::DimOp::create(b, loc, args[0], 1);
    Value sk = memref::DimOp::create(b, loc, args[1], 1);
    Value dv = memref::DimOp::create(b, loc, args[2], 2);
    Value nqb = arith::CeilDivSIOp::create(b, loc, sq, c(config.blockQ()));
    Value nkb = arith::CeilDivSIOp::create(b, loc, sk, c(kFlashBlockK));
    Value tasks = arith::MulIOp::create(b, loc, bh, nqb);
    Value want = arith::CeilDivSIOp::create(b, loc, c(4 * nThreads), tasks);
    Value ns = arith::MaxSIOp::create(
        b, loc, c(1), arith::MinSIOp::create(b, loc, nkb, want));
    Value total = arith::MulIOp::create(b, loc, tasks, ns);
    int64_t dyn = ShapedType::kDynamic, bq = config.blockQ();
    IntegerAttr align = b.getI64IntegerAttr(64);
    args.push_back(memref::AllocOp::create(
        b, loc, MemRefType::get({dyn, dyn, bq}, b.getF32Type()),
        ValueRange{total, dv}, align));
    for (int i = 0; i < 2; ++i)
      args.push_back(memref::AllocOp::create(
          b, loc, MemRefType::get({dyn, bq}, b.getF32Type()), ValueRange{total},
          align));
  }

  func::FuncOp getDecodeKernel(const FlashDecodeConfig &config,
                               SymbolTable &symbols,
                               llvm::StringMap<func::FuncOp> &kernels) {
    return getOrBuildKernel(decodeKey(config), symbols, kernels,
                            [&](OpBuilder &b, Location loc) {
                              return buildFlashDecodeKernel(
                                  b, loc, "__transformer_flash_decode", config);
                            });
  }

  void rewrite(AttentionOp op, SymbolTable &symbols,
               llvm::StringMap<func::FuncOp> &kernels, unsigned nThreads) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto qType = cast<RankedTensorType>(op.getQuery().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = qType.getRank();
    emitShapeChecks(b, loc, op);

    FlashKernelConfig config;
    config.lanes = lanes;
    config.threads = nThreads;
    config.keyRows = keyRowsFor(config.vectors, registers);
    config.scale = op.getEffectiveScale();
    config.causal = op.getCausal();
    if (std::optional<uint64_t> w = op.getWindow())
      config.window = static_cast<int64_t>(*w);
    config.hasMask = op.getMask() != nullptr;
    int64_t sqStatic = qType.getDimSize(rank - 2);
    // Decoding shapes with static head dims take the decoding kernel (keys
    // on the lanes): always for a static Sq <= 16, after a run-time check
    // for a dynamic Sq (GPT-2's decode step). Others with a static Sq <= 16
    // keep one vector of queries per block, with the keys split.
    std::optional<FlashDecodeConfig> decode = decodeConfig(op, nThreads, lanes);
    bool smallSq =
        !ShapedType::isDynamic(sqStatic) && sqStatic <= kFlashDecodeMaxQueries;
    if (smallSq && !decode) {
      config.vectors = 1;
      config.keyRows = keyRowsFor(config.vectors, registers);
      config.split = nThreads > 1;
    }
    if (config.hasMask)
      if (std::optional<MaskBlocks> blocks =
              MaskBlocks::fromAttr(op->getAttr(kMaskBlocksAttrName)))
        if (blocks->blockK == kFlashBlockK &&
            blocks->blockQ % config.blockQ() == 0)
          config.maskBlocks = blocks;

    SmallVector<Value> args = {bufferOf(b, loc, op.getQuery()),
                               bufferOf(b, loc, op.getKey()),
                               bufferOf(b, loc, op.getValue())};
    if (config.hasMask)
      args.push_back(bufferOf(b, loc, op.getMask()));

    // The result buffer, in the result's own shape.
    auto outType =
        MemRefType::get(resultType.getShape(), resultType.getElementType());
    SmallVector<Value> dynSizes;
    for (int64_t i = 0; i < rank; ++i) {
      if (!resultType.isDynamicDim(i))
        continue;
      Value src = i == rank - 1 ? op.getValue() : op.getQuery();
      dynSizes.push_back(tensor::DimOp::create(b, loc, src, i));
    }
    Value out = memref::AllocOp::create(b, loc, outType, dynSizes,
                                        b.getI64IntegerAttr(64));
    int64_t dyn = ShapedType::kDynamic;
    args.push_back(asBuffer3D(
        b, loc, out,
        MemRefType::get({dyn, dyn, dyn}, resultType.getElementType())));

    if (decode && smallSq) {
      func::CallOp::create(b, loc, getDecodeKernel(*decode, symbols, kernels),
                           args);
    } else if (decode) {
      Value sq = memref::DimOp::create(b, loc, args[0], 1);
      Value small = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ule, sq,
          arith::ConstantIndexOp::create(b, loc, kFlashDecodeMaxQueries));
      func::FuncOp decodeKernel = getDecodeKernel(*decode, symbols, kernels);
      func::FuncOp kernel = getKernel(config, symbols, kernels);
      scf::IfOp::create(
          b, loc, small,
          [&](OpBuilder &nb, Location l) {
            func::CallOp::create(nb, l, decodeKernel, args);
            scf::YieldOp::create(nb, l);
          },
          [&](OpBuilder &nb, Location l) {
            func::CallOp::create(nb, l, kernel, args);
            scf::YieldOp::create(nb, l);
          });
    } else {
      if (config.split)
        appendSplitBuffers(b, loc, config, args, nThreads);
      func::CallOp::create(b, loc, getKernel(config, symbols, kernels), args);
    }
    Value result = bufferization::ToTensorOp::create(
        b, loc, resultType, out, /*restrict=*/true, /*writable=*/true);
    op.replaceAllUsesWith(result);
    op.erase();
  }
};

} // namespace
