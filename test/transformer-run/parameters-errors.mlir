// REQUIRES: numpy
// Every bad weights file is one `Error:` line naming the tensor (or the
// file when the header itself is broken), exit status 1, nothing run.
// RUN: %python %test_lib/safetensors_io.py %t.missing.safetensors missing
// RUN: %exit-status 1 transformer-run %s --parameters=%t.missing.safetensors --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: Error: parameter 'h.0.b': no tensor of that name (or 'transformer.h.0.b') in '{{.*}}missing.safetensors' (argument 2 of @main)
// MISSING-NOT: EXEC
// RUN: %python %test_lib/safetensors_io.py %t.shape.safetensors wrong-shape
// RUN: %exit-status 1 transformer-run %s --parameters=%t.shape.safetensors --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: Error: parameter 'h.0.w': the function expects shape [3, 4], the file has [4, 3] (F32) (argument 1 of @main)
// RUN: %python %test_lib/safetensors_io.py %t.dtype.safetensors wrong-dtype
// RUN: %exit-status 1 transformer-run %s --parameters=%t.dtype.safetensors --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: Error: parameter 'h.0.b': dtype I64 cannot be bound to an argument of f32 (accepted: F32, F16, BF16) (argument 2 of @main)
// RUN: %python %test_lib/safetensors_io.py %t.trunc.safetensors truncated
// RUN: %exit-status 1 transformer-run %s --parameters=%t.trunc.safetensors --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: Error: {{.*}}trunc.safetensors: tensor 'h.0.b': data_offsets [48, 64) go past the end of the data (56 bytes; is the file truncated?)
// RUN: %python %test_lib/safetensors_io.py %t.len.safetensors bad-header-length
// RUN: %exit-status 1 transformer-run %s --parameters=%t.len.safetensors --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=LEN
// LEN: Error: {{.*}}len.safetensors: bad header length 1099511627776 (the file holds {{[0-9]+}} bytes after it; truncated or not a .safetensors file)
// RUN: %python %test_lib/safetensors_io.py %t.json.safetensors bad-json
// RUN: %exit-status 1 transformer-run %s --parameters=%t.json.safetensors --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=JSON
// JSON: Error: {{.*}}json.safetensors: the header is not valid JSON: {{.*}}
// RUN: %python %test_lib/safetensors_io.py %t.overlap.safetensors overlap
// RUN: %exit-status 1 transformer-run %s --parameters=%t.overlap.safetensors --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=OVERLAP
// OVERLAP: Error: {{.*}}overlap.safetensors: tensor 'h.0.b': data_offsets [40, 56) overlap those of 'h.0.w' [0, 48)
// RUN: %python %test_lib/safetensors_io.py %t.size.safetensors size-mismatch
// RUN: %exit-status 1 transformer-run %s --parameters=%t.size.safetensors --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=SIZE
// SIZE: Error: {{.*}}size.safetensors: tensor 'h.0.w': data_offsets [0, 40) hold 40 bytes, but F32 [3, 4] needs 48
// RUN: %python %test_lib/safetensors_io.py %t.dt.safetensors unknown-dtype
// RUN: %exit-status 1 transformer-run %s --parameters=%t.dt.safetensors --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: Error: {{.*}}dt.safetensors: tensor 'h.0.w': unknown dtype 'F33'
// RUN: %exit-status 1 transformer-run %s --parameters=%t.nonexistent.safetensors --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: Error: cannot read '{{.*}}nonexistent.safetensors': {{.*}}
func.func @main(%x: tensor<2x3xf32>,
                %w: tensor<3x4xf32> {transformer.parameter = "h.0.w"},
                %b: tensor<4xf32> {transformer.parameter = "h.0.b"}) -> tensor<2x4xf32> {
  %y = transformer.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %z = transformer.add %y, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %z : tensor<2x4xf32>
}
