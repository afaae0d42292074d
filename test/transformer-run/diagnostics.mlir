// Errors keep their context in one line: locations as transformer-opt shows
// them (named and fused locations too), notes folded in; flag and library
// mistakes are one `Error:` line before anything is compiled.

// RUN: rm -rf %t && split-file %s %t

// A name location without a file position shows as transformer-opt shows it.
// RUN: %exit-status 1 transformer-run %t/named.mlir 2>&1 | FileCheck %s --check-prefix=NAMED --match-full-lines --implicit-check-not={{.}}
// NAMED: Error: loc("layer0.attn.qk"): 'transformer.softmax' op result type 'tensor<2x2xf32>' does not match the type 'tensor<2x3xf32>' inferred from the operands

// RUN: %exit-status 1 transformer-run %t/fused.mlir 2>&1 | FileCheck %s --check-prefix=FUSED --match-full-lines --implicit-check-not={{.}}
// FUSED: Error: loc(fused["layer0", "qk"]): 'transformer.softmax' op result type {{.*}}

// A name around a file position shows the position.
// RUN: %exit-status 1 transformer-run %t/named-file.mlir 2>&1 | FileCheck %s --check-prefix=NAMEDFILE --match-full-lines --implicit-check-not={{.}}
// NAMEDFILE: Error: model.py:12:3: 'transformer.softmax' op result type {{.*}}

// Notes are folded into the same line.
// RUN: %exit-status 1 transformer-run %t/dup.mlir 2>&1 | FileCheck %s --check-prefix=NOTE --match-full-lines --implicit-check-not={{.}}
// NOTE: Error: {{.*}}dup.mlir:2:1: redefinition of symbol named 'main'; note: {{.*}}dup.mlir:1:1: see existing symbol definition here

// A missing --shared-libs file is reported first, before the (broken) input
// is even parsed.
// RUN: %exit-status 1 transformer-run %t/dup.mlir --shared-libs=%t/libmissing.so 2>&1 | FileCheck %s --check-prefix=NOLIB --match-full-lines --implicit-check-not={{.}}
// NOLIB: Error: --shared-libs: no such file '{{.*}}libmissing.so'
// RUN: echo "not a library" > %t/libbad.so
// RUN: %exit-status 1 transformer-run %t/dup.mlir --shared-libs=%t/libbad.so 2>&1 | FileCheck %s --check-prefix=BADLIB --match-full-lines --implicit-check-not={{.}}
// BADLIB: Error: --shared-libs: cannot load '{{.*}}libbad.so': {{.*}}

// A function that nothing defines is one line, before anything runs.
// RUN: %exit-status 1 transformer-run %t/nosym.mlir --input=1 2>&1 | FileCheck %s --check-prefix=NOSYM --match-full-lines --implicit-check-not={{.}}
// NOSYM: Error: the program calls 'not_defined_anywhere', which neither the program nor a --shared-libs library defines

// Options are validated.
// RUN: %exit-status 1 transformer-run %t/nosym.mlir -O0 -O3 2>&1 | FileCheck %s --check-prefix=OPT --match-full-lines --implicit-check-not={{.}}
// OPT: Error: give at most one of -O0, -O1, -O2, -O3

// --version names the project (both tools).
// RUN: transformer-run --version | FileCheck %s --check-prefix=RUNVERSION
// RUNVERSION: transformer-run (transformer-mlir) version {{[0-9]+\.[0-9]+}}
// RUN: transformer-opt --version | FileCheck %s --check-prefix=OPTVERSION
// OPTVERSION: transformer-opt (transformer-mlir) version {{[0-9]+\.[0-9]+}}

// --host-supports-jit creates a JIT for the host.
// RUN: transformer-run --host-supports-jit | FileCheck %s --check-prefix=JIT
// JIT: {{^true$}}

//--- named.mlir
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %0 = transformer.softmax %a : tensor<2x3xf32> -> tensor<2x2xf32> loc("layer0.attn.qk")
  return %0 : tensor<2x2xf32>
}
//--- fused.mlir
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %0 = transformer.softmax %a : tensor<2x3xf32> -> tensor<2x2xf32> loc(fused["layer0", "qk"])
  return %0 : tensor<2x2xf32>
}
//--- named-file.mlir
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %0 = transformer.softmax %a : tensor<2x3xf32> -> tensor<2x2xf32> loc("qk"("model.py":12:3))
  return %0 : tensor<2x2xf32>
}
//--- dup.mlir
func.func @main() { return }
func.func @main() { return }
//--- nosym.mlir
func.func private @not_defined_anywhere(f32) -> f32
func.func @main(%a: f32) -> f32 {
  %0 = func.call @not_defined_anywhere(%a) : (f32) -> f32
  return %0 : f32
}
