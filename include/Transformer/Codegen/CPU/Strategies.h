//===- Strategies.h - CPU code generation, one strategy per op family -*- C++
//-*-===//
//
// The -O2/-O3 code generation for CPUs is one strategy per op family, each a
// short list of passes in its own folder of lib/Codegen/CPU:
//
//   Attention/    flash attention and decoding kernels, mask sparsity
//   Contraction/  matmul, linear, batched products: the transform schedule,
//                 packing, epilogue fusion, dot kernels for few rows
//   Rows/         layer_norm, softmax and element-wise ops: row chains
//                 fused and vectorized
//   Target/       the target CPU that all of them derive their sizes from
//
// A family works at more than one stage of the pipeline (on tensors before
// outlining, on buffers after bufferization); each stage has its builder.
// The pipeline (lib/Pipelines) resolves the target once and hands it to
// them, in this order:
//
//   addSelectTarget            records the target on the module
//   addAttentionStrategy       transformer.attention -> flash kernels
//   addContractionPreparation  linalg on tensors, before outlining
//   addRowFusion               the same stage
//   addEpilogueFusion          after outlining
//   addContractionStrategy     on buffers
//   addRowStrategy             on buffers
//
// Each is registered as a pass pipeline of transformer-opt
// (`--transformer-cpu-attention-strategy`, ...; see
// registerCPUStrategyPipelines), so that it can be run and tested alone.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_CODEGEN_CPU_STRATEGIES_H
#define TRANSFORMER_CODEGEN_CPU_STRATEGIES_H

#include "Transformer/Codegen/CPU/Target/CPUTarget.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <memory>

namespace mlir::transformer {

/// --transformer-cpu-select-target with an already resolved target: records
/// `target` on the module as it is.
std::unique_ptr<Pass> createTransformerCPUSelectTargetPass(const CPUTarget &);

/// Records `target` on the module (`transformer.target`) for the passes
/// after it.
void addSelectTarget(OpPassManager &pm, const CPUTarget &target);

/// Attention on tensors: the static mask classes, the flash kernels (built
/// for target.threads), and the masked blocks of unfused chains skipped.
void addAttentionStrategy(OpPassManager &pm, const CPUTarget &target);

/// Contractions on linalg tensors, before outlining: normalized, padded to
/// the register tile, tagged; loop-invariant preparations (a weight's
/// transposed copy) hoisted.
/// With `panelParameters`, weights bound by name that only plain
/// contractions read are laid out in panels by the caller
/// (--transformer-cpu-panel-parameters).
void addContractionPreparation(OpPassManager &pm, bool panelParameters);

/// Row ops on linalg tensors, before outlining: softmax and layer_norm
/// chains tiled by rows as one kernel.
void addRowFusion(OpPassManager &pm);

/// After outlining: element-wise ops after a contraction fused into its
/// cache tiles.
void addEpilogueFusion(OpPassManager &pm);

/// Contractions on buffers: the transform schedule (`schedule`, or the
/// built-in one when empty) and the next k block's prefetch.
void addContractionStrategy(OpPassManager &pm, llvm::StringRef schedule);

/// Row ops and element-wise ops on buffers, vectorized.
void addRowStrategy(OpPassManager &pm);

/// Registers each strategy as a pass pipeline of its own
/// (`--transformer-cpu-{attention,contraction,row}-strategy`, with the
/// target's options), for tests and experiments.
void registerCPUStrategyPipelines();

} // namespace mlir::transformer

#endif // TRANSFORMER_CODEGEN_CPU_STRATEGIES_H
