// REQUIRES: valgrind
// transformer-run frees every buffer: its inputs, the results the compiled
// code hands over (including copies of aliased arguments and constants), and
// the compiler's own state. valgrind exits with 99 on any definite leak or
// memory error.

// RUN: valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 transformer-run %s -e block --input=2x4x8xf32=random --input=8xf32=random --input=8xf32=random --benchmark-repetitions=3 | FileCheck %s --check-prefix=BLOCK
// BLOCK: run @block: {{.*}} over 3 repetitions (0 warm-up)
// BLOCK-NEXT: EXEC @block
// BLOCK-NEXT: result[0]: 2x4x8xf32={{\[\[\[}}{{.*}}]]]
// BLOCK-NEXT: result[1]: 2x4x8xf32={{\[\[\[}}{{.*}}]]]
// BLOCK-EMPTY:

// RUN: valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 transformer-run %s -e aliases --input="3xf32=1 2 3" | FileCheck %s --check-prefix=ALIAS --match-full-lines
// ALIAS: EXEC @aliases
// ALIAS-NEXT: result[0]: 3xf32=[1 2 3]
// ALIAS-NEXT: result[1]: 3xf32=[1 2 3]
// ALIAS-NEXT: result[2]: 2xf32=[5 6]
// ALIAS-EMPTY:

// An input error exits before anything is compiled or run, leak-free too:
// status 1 from transformer-run, not valgrind's 99, and nothing else printed.
// RUN: %exit-status 1 valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 transformer-run %s -e aliases --input=4xf32=1 2>&1 | FileCheck %s --check-prefix=BAD --match-full-lines --implicit-check-not={{.}}
// BAD: Error: input 0 of @aliases: expected tensor<3xf32>, got 4xf32

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
