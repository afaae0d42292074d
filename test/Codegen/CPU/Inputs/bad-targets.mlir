// Recorded targets and schedule tags the dialect rejects (used by
// select-target-errors.mlir).

// expected-error @below {{'transformer.target' vector_bits must be 128, 256 or 512, got 384}}
module attributes {transformer.target = {cpu = "x", isa = ["avx2"], vector_bits = 384, vector_registers = 16, l1d = 32768, l2 = 1048576, l3 = 1048576, cores = 2, threads = 2}} {
}

// -----

// expected-error @below {{'transformer.target' needs an integer 'l2' entry from 1 to 1099511627776}}
module attributes {transformer.target = {cpu = "x", isa = ["avx2"], vector_bits = 256, vector_registers = 16, l1d = 32768, l3 = 1048576, cores = 2, threads = 2}} {
}

// -----

// expected-error @below {{'transformer.target' has unknown isa 'sse5'}}
module attributes {transformer.target = {cpu = "x", isa = ["sse5"], vector_bits = 256, vector_registers = 16, l1d = 32768, l2 = 1048576, l3 = 1048576, cores = 2, threads = 2}} {
}

// -----

// expected-error @below {{'transformer.target' needs an integer 'vector_registers' entry from 1 to 64}}
module attributes {transformer.target = {cpu = "x", isa = ["avx2"], vector_bits = 256, vector_registers = 1000000, l1d = 32768, l2 = 1048576, l3 = 1048576, cores = 2, threads = 2}} {
}

// -----

// expected-error @below {{'transformer.target' needs an integer 'l1d' entry from 1 to 1099511627776}}
module attributes {transformer.target = {cpu = "x", isa = ["avx2"], vector_bits = 256, vector_registers = 16, l1d = 100000000000000000000 : i128, l2 = 1048576, l3 = 1048576, cores = 2, threads = 2}} {
}

// -----

module {
  // expected-error @below {{'transformer.target' belongs on a module}}
  func.func @f() attributes {transformer.target = {cpu = "x"}} {
    return
  }
}

// -----

func.func @g(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  // expected-error @below {{'transformer.contraction' must be one of mnk, bmnk, mnk_tile}}
  linalg.matmul {transformer.contraction = "kmn"} ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}
