// Inputs built to break a compiler: each gets a diagnostic or works, never a
// crash, a hang or a quadratic blow-up.

// 100 nested regions compile; 20,000 nested regions (or 100,000 nested
// brackets) are rejected before the recursive parser can overflow the stack.
// RUN: %python %test_lib/gen_hostile.py nested-regions 100 %t.nested100.mlir
// RUN: transformer-opt %t.nested100.mlir --transformer-to-llvm | FileCheck %s --check-prefix=NESTED-OK
// NESTED-OK: llvm.func @main
// RUN: %python %test_lib/gen_hostile.py nested-regions 20000 %t.nested20k.mlir
// RUN: not transformer-opt %t.nested20k.mlir 2>&1 | FileCheck %s --check-prefix=TOO-DEEP
// RUN: %python %test_lib/gen_hostile.py nested-brackets 100000 %t.brackets.mlir
// RUN: not transformer-opt %t.brackets.mlir 2>&1 | FileCheck %s --check-prefix=TOO-DEEP
// TOO-DEEP: error: nesting deeper than 1000 levels at line {{[0-9]+}}
// RUN: not transformer-run %t.brackets.mlir 2>&1 | FileCheck %s --check-prefix=RUN-TOO-DEEP
// RUN-TOO-DEEP: Error: {{.*}}brackets.mlir: nesting deeper than 1000 levels at line 1

// Brackets inside comments and string literals do not count towards the
// depth: a valid file with 2,000 of them in each (after an escaped quote in
// the string) compiles.
// RUN: %python -c "print('// ' + '(' * 2000); print('func.func @main() attributes {note = \"\\\\\"' + '[' * 2000 + '\"} { return }')" > %t.skipped.mlir
// RUN: transformer-opt %t.skipped.mlir | FileCheck %s --check-prefix=SKIPPED
// SKIPPED: func.func @main() attributes {note = "\22{{\[+}}"}

// On standard input the depth cannot be checked first; the tools run on a
// 512 MiB stack, which holds 3,000 nested regions.
// RUN: %python %test_lib/gen_hostile.py nested-regions 3000 %t.nested3k.mlir
// RUN: transformer-opt < %t.nested3k.mlir --canonicalize | FileCheck %s --check-prefix=STDIN
// STDIN: func.func @main

// A chain of 20,000 ops compiles in linear time (element-wise fusion is
// bounded, see --transformer-fuse-elementwise).
// RUN: %python %test_lib/gen_hostile.py long-chain 20000 %t.long.mlir
// RUN: transformer-opt %t.long.mlir --transformer-to-llvm | FileCheck %s --check-prefix=LONG
// LONG: llvm.func @main

// An empty file is an empty module; binary garbage is a parse error.
// RUN: printf '' > %t.empty.mlir
// RUN: transformer-opt %t.empty.mlir | FileCheck %s --check-prefix=EMPTY
// EMPTY: module {
// RUN: not transformer-run %t.empty.mlir 2>&1 | FileCheck %s --check-prefix=RUN-EMPTY
// RUN-EMPTY: Error: no function @main in the module
// RUN: %python %test_lib/gen_hostile.py binary 4096 %t.binary.mlir
// RUN: not transformer-opt %t.binary.mlir 2>&1 | FileCheck %s --check-prefix=BINARY
// RUN: not transformer-run %t.binary.mlir 2>&1 | FileCheck %s --check-prefix=BINARY
// BINARY: {{[Ee]}}rror{{:?}} {{.*}}unexpected character
