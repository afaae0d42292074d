// What only shows at run time stops the program with a message naming the
// op, exit status 1 and no result: never a wrong result or an out-of-bounds
// read.

// RUN: not transformer-run %s -e matmul --input=2x3xf32=1 --input=4x2xf32=1 2>&1 | FileCheck %s --check-prefix=MATMUL
// MATMUL: Error: run-time check failed: transformer.matmul: the inner dimensions of lhs and rhs differ
// MATMUL-NOT: result[0]

// RUN: not transformer-run %s -e add --input=3xf32=1 --input=4xf32=1 2>&1 | FileCheck %s --check-prefix=ADD
// ADD: Error: run-time check failed: transformer.add: operand 1: dimension 0 does not match the result

// RUN: not transformer-run %s -e embedding --input="3xi32=0 4 1" --input=4x2xf32=1 2>&1 | FileCheck %s --check-prefix=EMBED
// RUN: not transformer-run %s -e embedding --input="3xi32=0 -1 1" --input=4x2xf32=1 2>&1 | FileCheck %s --check-prefix=EMBED
// EMBED: Error: run-time check failed: transformer.embedding: a token id is outside [0, V) of the table
// RUN: transformer-run %s -e embedding --input="3xi32=0 3 1" --input=4x2xf32=1 | FileCheck %s --check-prefix=EMBED-OK
// EMBED-OK: result[0]: 3x2xf32={{\[\[}}1 1][1 1][1 1]]

// RUN: not transformer-run %s -e rope --input=2x4xf32=1 --input=index=-1 2>&1 | FileCheck %s --check-prefix=ROPE
// ROPE: Error: run-time check failed: transformer.rope: the position offset is negative

// RUN: not transformer-run %s -e attention --input=2x4xf32=1 --input=3x4xf32=1 --input=2x4xf32=1 2>&1 | FileCheck %s --check-prefix=ATTN
// ATTN: Error: run-time check failed: transformer.attention: the sequence lengths of key and value differ

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
func.func @rope(%x: tensor<?x?xf32>, %pos: index) -> tensor<?x?xf32> {
  %0 = transformer.rope %x at %pos : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @attention(%q: tensor<?x?xf32>, %k: tensor<?x?xf32>, %v: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.attention %q, %k, %v : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
