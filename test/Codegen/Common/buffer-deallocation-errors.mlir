// RUN: transformer-opt %s --transformer-buffer-deallocation --split-input-file --verify-diagnostics

// What the ownership-based pipeline cannot handle is reported, not
// crashed on: here an unstructured loop in a function it manages.
// expected-error@+1 {{Only structured control-flow loops are supported.}}
func.func @loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^head(%c0 : index)
^head(%i: index):
  %done = arith.cmpi sge, %i, %n : index
  cf.cond_br %done, ^exit, ^body
^body:
  %buf = memref.alloc() : memref<4xf32>
  %next = arith.addi %i, %c1 : index
  cf.br ^head(%next : index)
^exit:
  return
}
