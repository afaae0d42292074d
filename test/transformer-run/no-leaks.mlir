// REQUIRES: valgrind
// transformer-run frees every buffer: its inputs, the results the compiled
// code hands over (including copies of aliased arguments and constants), and
// the compiler's own state. valgrind exits with 99 on any definite leak or
// memory error.

// RUN: valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 transformer-run %s -e block --input=2x4x8xf32=random --input=8xf32=random --input=8xf32=random --benchmark-repetitions=3 | FileCheck %s --check-prefix=BLOCK
// BLOCK: EXEC @block
// BLOCK: result[0]: 2x4x8xf32=
// BLOCK: result[1]: 2x4x8xf32=

// RUN: valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 transformer-run %s -e aliases --input=3xf32=1 | FileCheck %s --check-prefix=ALIAS
// ALIAS: result[0]: 3xf32=[1 1 1]
// ALIAS: result[1]: 3xf32=[1 1 1]
// ALIAS: result[2]: 2xf32=[5 6]

// An input error exits before anything is compiled or run, leak-free too.
// RUN: not valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 transformer-run %s -e aliases --input=4xf32=1 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: Error: input 0 of @aliases: expected tensor<3xf32>, got 4xf32
// BAD-NOT: ERROR SUMMARY

func.func @block(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %h = transformer.layer_norm %x, %g, %b : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>
  %a = transformer.attention %h, %h, %h {causal} : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %r = transformer.add %x, %a : tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %r, %h : tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

func.func @aliases(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<2xf32>) {
  %c = arith.constant dense<[5.0, 6.0]> : tensor<2xf32>
  return %x, %x, %c : tensor<3xf32>, tensor<3xf32>, tensor<2xf32>
}
