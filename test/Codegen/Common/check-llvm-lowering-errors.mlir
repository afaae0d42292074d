// RUN: transformer-opt %s --transformer-check-llvm-lowering --split-input-file --verify-diagnostics

// An op of another dialect is named, with the element type that stopped it
// when there is one.
llvm.func @f8(%x: vector<4xf32>) {
  // expected-error@+1 {{'arith.truncf' op has no lowering to LLVM for type 'vector<4xf8E4M3FN>': its element type 'f8E4M3FN' is not supported}}
  %t = arith.truncf %x : vector<4xf32> to vector<4xf8E4M3FN>
  llvm.return
}

// -----

// A conversion cast left between two types names the op it stands for.
llvm.func @cast(%x: i8) -> i8 {
  %a = builtin.unrealized_conversion_cast %x : i8 to f8E5M2
  // expected-error@+1 {{'arith.addf' op has no lowering to LLVM for type 'f8E5M2'}}
  %f = arith.addf %a, %a : f8E5M2
  %c = builtin.unrealized_conversion_cast %f : f8E5M2 to i8
  llvm.return %c : i8
}

// -----

// Without an unsupported type, the op alone.
llvm.func @n_d(%x: !llvm.array<2 x vector<2xf32>>) {
  %v = builtin.unrealized_conversion_cast %x : !llvm.array<2 x vector<2xf32>> to vector<2x2xf32>
  // expected-error@+1 {{'vector.transpose' op has no lowering to LLVM}}
  %t = vector.transpose %v, [1, 0] : vector<2x2xf32> to vector<2x2xf32>
  llvm.return
}
