// What only shows at run time stops the program with a message naming the
// op and the values involved, exit status 1 and no result: never a wrong result or an out-of-bounds
// read. The status is checked exactly (%exit-status), and nothing but the
// one line is printed: no EXEC, no result.

// RUN: %exit-status 1 transformer-run %s -e matmul --input=2x3xf32=1 --input=4x2xf32=1 2>&1 | FileCheck %s --check-prefix=MATMUL --match-full-lines --implicit-check-not={{.}}
// MATMUL: Error: run-time check failed: transformer.matmul: the inner dimensions of lhs and rhs differ (lhs K = 3, rhs K = 4)

// RUN: %exit-status 1 transformer-run %s -e add --input=3xf32=1 --input=4xf32=1 2>&1 | FileCheck %s --check-prefix=ADD --match-full-lines --implicit-check-not={{.}}
// ADD: Error: run-time check failed: transformer.add: operand 1: dimension 0 does not match the result (dynamic dimensions do not broadcast) (size = 4, expected = 3)

// RUN: %exit-status 1 transformer-run %s -e embedding --input="3xi32=0 4 1" --input=4x2xf32=1 2>&1 | FileCheck %s --check-prefix=EMBED-HIGH --match-full-lines --implicit-check-not={{.}}
// EMBED-HIGH: Error: run-time check failed: transformer.embedding: a token id is outside [0, V) of the table (min id = 0, max id = 4, V = 4)
// RUN: %exit-status 1 transformer-run %s -e embedding --input="3xi32=0 -1 1" --input=4x2xf32=1 2>&1 | FileCheck %s --check-prefix=EMBED-LOW --match-full-lines --implicit-check-not={{.}}
// EMBED-LOW: Error: run-time check failed: transformer.embedding: a token id is outside [0, V) of the table (min id = -1, max id = 1, V = 4)
// RUN: %exit-status 1 transformer-run %s -e embedding64 --input="2xi64=9000000000 0" --input=4x2xf32=1 2>&1 | FileCheck %s --check-prefix=EMBED-I64 --match-full-lines --implicit-check-not={{.}}
// EMBED-I64: Error: run-time check failed: transformer.embedding: a token id is outside [0, V) of the table (min id = 0, max id = 9000000000, V = 4)
// Blocks of dynamic size for a static dequantized result: checked before
// any block is read, at -O0 and in the optimised kernels.
// RUN: %exit-status 1 transformer-run %s -O0 -e dequantize --input=3x2x34xi8=0 --input=1x64xf32=1 2>&1 | FileCheck %s --check-prefix=DEQUANT-ROWS --match-full-lines --implicit-check-not={{.}}
// RUN: %exit-status 1 transformer-run %s -O3 -e dequantize --input=3x2x34xi8=0 --input=1x64xf32=1 2>&1 | FileCheck %s --check-prefix=DEQUANT-ROWS --match-full-lines --implicit-check-not={{.}}
// DEQUANT-ROWS: Error: run-time check failed: transformer.dequantize: the blocks do not make the declared result's dimension 0 (from the blocks = 3, declared = 4)
// RUN: %exit-status 1 transformer-run %s -O3 -e dequantize --input=4x1x34xi8=0 --input=1x64xf32=1 2>&1 | FileCheck %s --check-prefix=DEQUANT-BLOCKS --match-full-lines --implicit-check-not={{.}}
// DEQUANT-BLOCKS: Error: run-time check failed: transformer.dequantize: the blocks do not make the declared result's dimension 1 (from the blocks = 32, declared = 64)
// RUN: transformer-run %s -O3 -e dequantize --input=4x2x34xi8=0 --input=1x64xf32=1 | FileCheck %s --check-prefix=DEQUANT-OK
// DEQUANT-OK: result[0]: 1x4xf32={{\[\[}}0 0 0 0]]
// In range: every id picks its own row of a table with distinct rows.
// RUN: transformer-run %s -e embedding --input="3xi32=0 3 1" --input="4x2xf32=0 1 2 3 4 5 6 7" | FileCheck %s --check-prefix=EMBED-OK
// EMBED-OK: result[0]: 3x2xf32={{\[\[}}0 1][6 7][2 3]]

// RUN: %exit-status 1 transformer-run %s -e rope --input=2x4xf32=1 --input=index=-1 2>&1 | FileCheck %s --check-prefix=ROPE --match-full-lines --implicit-check-not={{.}}
// ROPE: Error: run-time check failed: transformer.rope: the position offset is negative (offset = -1)

// RUN: %exit-status 1 transformer-run %s -e attention --input=2x4xf32=1 --input=3x4xf32=1 --input=2x4xf32=1 2>&1 | FileCheck %s --check-prefix=ATTN --match-full-lines --implicit-check-not={{.}}
// ATTN: Error: run-time check failed: transformer.attention: the sequence lengths of key and value differ (key Sk = 3, value Sk = 2)
// Grouped-query attention with heads known only at run time, -O0 and the
// flash kernels; rope's frequency table of the wrong size.
// RUN: %exit-status 1 transformer-run %s -O0 -e attention_heads --input=1x6x2x4xf32=1 --input=1x4x2x4xf32=1 --input=1x4x2x4xf32=1 2>&1 | FileCheck %s --check-prefix=ATTN-HEADS --match-full-lines --implicit-check-not={{.}}
// RUN: %exit-status 1 transformer-run %s -O2 -e attention_heads --input=1x6x2x4xf32=1 --input=1x4x2x4xf32=1 --input=1x4x2x4xf32=1 2>&1 | FileCheck %s --check-prefix=ATTN-HEADS --match-full-lines --implicit-check-not={{.}}
// ATTN-HEADS: Error: run-time check failed: transformer.attention: the query heads are not a multiple of the key and value heads (query heads = 6, key heads = 4)
// RUN: %exit-status 1 transformer-run %s -O2 -e attention_heads --input=1x4x2x4xf32=1 --input=1x2x2x4xf32=1 --input=1x1x2x4xf32=1 2>&1 | FileCheck %s --check-prefix=ATTN-KV --match-full-lines --implicit-check-not={{.}}
// ATTN-KV: Error: run-time check failed: transformer.attention: the heads of key and value differ (key = 2, value = 1)
// RUN: %exit-status 1 transformer-run %s -e rope_freqs --input=2x8xf32=1 --input=8xf32=1 2>&1 | FileCheck %s --check-prefix=ROPE-FREQS --match-full-lines --implicit-check-not={{.}}
// ROPE-FREQS: Error: run-time check failed: transformer.rope: freqs must have D/2 entries (freqs = 8, D/2 = 4)

func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.matmul %a, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = transformer.add %a, %b : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @embedding(%ids: tensor<?xi32>, %t: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.embedding %ids, %t : tensor<?xi32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
// RUN: %exit-status 1 transformer-run %s -e rope_odd --input=2x5xf32=1 2>&1 | FileCheck %s --check-prefix=ROPE-ODD --match-full-lines --implicit-check-not={{.}}
// ROPE-ODD: Error: run-time check failed: transformer.rope: the last dimension must be even (D = 5)

// RUN: %exit-status 1 transformer-run %s -e linear --input=2x3xf32=1 --input=4x5xf32=1 --input=4xf32=1 2>&1 | FileCheck %s --check-prefix=LINEAR --match-full-lines --implicit-check-not={{.}}
// LINEAR: Error: run-time check failed: transformer.linear: the last dimension of the input differs from K of the weight (input K = 3, weight K = 5)

// RUN: %exit-status 1 transformer-run %s -e layer_norm --input=2x3xf32=1 --input=4xf32=1 --input=3xf32=1 2>&1 | FileCheck %s --check-prefix=LN --match-full-lines --implicit-check-not={{.}}
// LN: Error: run-time check failed: transformer.layer_norm: the size of gamma differs from the last dimension of the input (gamma = 4, D = 3)

// A declared static result dim that the dynamic operand contradicts.
// RUN: %exit-status 1 transformer-run %s -e declared --input=3x4xf32=1 2>&1 | FileCheck %s --check-prefix=DECLARED --match-full-lines --implicit-check-not={{.}}
// DECLARED: Error: run-time check failed: transformer.softmax: input: dimension 0 does not match the result (dynamic dimensions do not broadcast) (size = 3, expected = 2)

func.func @embedding64(%ids: tensor<?xi64>, %t: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.embedding %ids, %t : tensor<?xi64>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @rope_odd(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.rope %x : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @linear(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @layer_norm(%x: tensor<?x?xf32>, %g: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.layer_norm %x, %g, %b : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @declared(%x: tensor<?x4xf32>) -> tensor<2x4xf32> {
  %0 = transformer.softmax %x : tensor<?x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
func.func @rope(%x: tensor<?x?xf32>, %pos: index) -> tensor<?x?xf32> {
  %0 = transformer.rope %x at %pos : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @attention_heads(%q: tensor<1x?x2x4xf32>, %k: tensor<1x?x2x4xf32>, %v: tensor<1x?x2x4xf32>) -> tensor<1x?x2x4xf32> {
  %0 = transformer.attention %q, %k, %v : tensor<1x?x2x4xf32>, tensor<1x?x2x4xf32>, tensor<1x?x2x4xf32> -> tensor<1x?x2x4xf32>
  return %0 : tensor<1x?x2x4xf32>
}

func.func @rope_freqs(%x: tensor<?x?xf32>, %f: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.rope %x freqs(%f : tensor<?xf32>) {rotate_half} : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @attention(%q: tensor<?x?xf32>, %k: tensor<?x?xf32>, %v: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.attention %q, %k, %v : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @dequantize(%q: tensor<?x?x34xi8>, %x: tensor<1x64xf32>) -> tensor<1x4xf32> {
  %w = transformer.dequantize q8_0 %q : tensor<?x?x34xi8> -> tensor<4x64xf32>
  %0 = transformer.matmul %x, %w {transpose_b} : tensor<1x64xf32>, tensor<4x64xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}
