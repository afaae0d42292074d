// RUN: transformer-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule. Messages name the op and the clashing types.

func.func @case0(%a: tensor<4xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+1 {{'transformer.matmul' op lhs must have rank >= 2, got 'tensor<4xf32>'}}
  %0 = transformer.matmul %a, %b : tensor<4xf32>, tensor<4x5xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case1(%a: tensor<3x4xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'transformer.matmul' op rhs must have rank >= 2, got 'tensor<4xf32>'}}
  %0 = transformer.matmul %a, %b : tensor<3x4xf32>, tensor<4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case2(%a: tensor<2x3x4xf32>, %b: tensor<1x2x4x5xf32>) {
  // expected-error@+1 {{'transformer.matmul' op rhs must have the rank of lhs (3) or rank 2, got lhs 'tensor<2x3x4xf32>' and rhs 'tensor<1x2x4x5xf32>'}}
  %0 = transformer.matmul %a, %b : tensor<2x3x4xf32>, tensor<1x2x4x5xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case3(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // expected-error@+1 {{'transformer.matmul' op batch dimensions differ: lhs 'tensor<2x3x4xf32>' and rhs 'tensor<3x4x5xf32>'}}
  %0 = transformer.matmul %a, %b : tensor<2x3x4xf32>, tensor<3x4x5xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case4(%a: tensor<3x4xf32>, %b: tensor<5x6xf32>) {
  // expected-error@+1 {{'transformer.matmul' op contracting dimensions differ: lhs 'tensor<3x4xf32>' has K = 4 but rhs 'tensor<5x6xf32>' has K = 5}}
  %0 = transformer.matmul %a, %b : tensor<3x4xf32>, tensor<5x6xf32> -> tensor<3x6xf32>
  return
}

// -----

func.func @case5(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+1 {{'transformer.matmul' op contracting dimensions differ: lhs 'tensor<3x4xf32>' has K = 4 but rhs 'tensor<4x5xf32>' has K = 5 (transpose_b)}}
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @case6(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+1 {{'transformer.matmul' op result type 'tensor<3x6xf32>' does not match the type 'tensor<3x5xf32>' inferred from the operands}}
  %0 = transformer.matmul %a, %b : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x6xf32>
  return
}

// -----

func.func @case7(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+1 {{'transformer.matmul' op result type 'tensor<2x3x5xf32>' does not match the type 'tensor<3x5xf32>' inferred from the operands}}
  %0 = transformer.matmul %a, %b : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<2x3x5xf32>
  return
}

// -----

func.func @case8(%a: tensor<3x4xf16>, %b: tensor<4x5xf16>) {
  // expected-error@+1 {{'transformer.matmul' op operand #0 must be tensor of 32-bit float values, but got 'tensor<3x4xf16>'}}
  %0 = transformer.matmul %a, %b : tensor<3x4xf16>, tensor<4x5xf16> -> tensor<3x5xf16>
  return
}

// -----

func.func @case9(%x: tensor<4xf32>) {
  // expected-error@+1 {{'transformer.transpose' op input must have rank >= 2, got 'tensor<4xf32>'}}
  %0 = transformer.transpose %x : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @case10(%x: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'transformer.transpose' op permutation must be a permutation of 0..2, got [0, 0, 1]}}
  %0 = transformer.transpose %x {permutation = array<i64: 0, 0, 1>} : tensor<2x3x4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case11(%x: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'transformer.transpose' op permutation must be a permutation of 0..2, got [0, 3, 1]}}
  %0 = transformer.transpose %x {permutation = array<i64: 0, 3, 1>} : tensor<2x3x4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case12(%x: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'transformer.transpose' op permutation has 2 entries but the input 'tensor<2x3x4xf32>' has rank 3}}
  %0 = transformer.transpose %x {permutation = array<i64: 1, 0>} : tensor<2x3x4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case13(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'transformer.transpose' op result type 'tensor<2x3xf32>' does not match the type 'tensor<3x2xf32>' inferred from the operands}}
  %0 = transformer.transpose %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @case14(%x: tensor<f32>) {
  // expected-error@+1 {{'transformer.softmax' op input must have rank >= 1, got 'tensor<f32>'}}
  %0 = transformer.softmax %x : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @case15(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'transformer.softmax' op result type 'tensor<3x2xf32>' does not match the type 'tensor<2x3xf32>' inferred from the operands}}
  %0 = transformer.softmax %x : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @case16(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'transformer.scale' op requires attribute 'factor'}}
  %0 = transformer.scale %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @case17(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'transformer.scale' op attribute 'factor' failed to satisfy constraint: 32-bit float attribute}}
  %0 = transformer.scale %x {factor = 2 : i32} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @case18(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'transformer.add' op operands are not broadcast-compatible: 'tensor<2x3xf32>' and 'tensor<4xf32>'}}
  %0 = transformer.add %a, %b : tensor<2x3xf32>, tensor<4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case19(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'transformer.mul' op result type 'tensor<3xf32>' does not match the type 'tensor<2x3xf32>' inferred from the operands}}
  %0 = transformer.mul %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @case20(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) {
  // expected-error@+1 {{'transformer.sub' op result type 'tensor<2x1xf32>' does not match the type 'tensor<2x3xf32>' inferred from the operands}}
  %0 = transformer.sub %a, %b : tensor<2x3xf32>, tensor<2x1xf32> -> tensor<2x1xf32>
  return
}

// -----

func.func @case21(%a: tensor<f32>, %b: tensor<2xf32>) {
  // expected-error@+1 {{'transformer.div' op lhs must have rank >= 1, got 'tensor<f32>'}}
  %0 = transformer.div %a, %b : tensor<f32>, tensor<2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @case22(%x: tensor<2xf64>) {
  // expected-error@+1 {{'transformer.relu' op operand #0 must be tensor of 32-bit float values, but got 'tensor<2xf64>'}}
  %0 = transformer.relu %x : tensor<2xf64> -> tensor<2xf64>
  return
}

// -----

func.func @case23(%x: tensor<2xf32>) {
  // expected-error@+1 {{'transformer.gelu' op approximate must be "tanh" or "none", got "fast"}}
  %0 = transformer.gelu %x {approximate = "fast"} : tensor<2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @case24(%x: tensor<2x8xf32>, %g: tensor<2x8xf32>) {
  // expected-error@+1 {{'transformer.layer_norm' op gamma must have rank 1, got 'tensor<2x8xf32>'}}
  %0 = transformer.layer_norm %x, %g, %g : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @case25(%x: tensor<2x8xf32>, %g: tensor<4xf32>, %b: tensor<8xf32>) {
  // expected-error@+1 {{'transformer.layer_norm' op gamma 'tensor<4xf32>' does not match the last dimension of the input 'tensor<2x8xf32>'}}
  %0 = transformer.layer_norm %x, %g, %b : tensor<2x8xf32>, tensor<4xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @case26(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<7xf32>) {
  // expected-error@+1 {{'transformer.layer_norm' op beta 'tensor<7xf32>' does not match the last dimension of the input 'tensor<2x8xf32>'}}
  %0 = transformer.layer_norm %x, %g, %b : tensor<2x8xf32>, tensor<8xf32>, tensor<7xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @case27(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error@+1 {{'transformer.layer_norm' op epsilon must be a finite non-negative number, got -1}}
  %0 = transformer.layer_norm %x, %g, %g {epsilon = -1.0 : f32} : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @case28(%x: tensor<2x4xf32>, %w: tensor<4xf32>, %b: tensor<5xf32>) {
  // expected-error@+1 {{'transformer.linear' op weight must have rank 2, got 'tensor<4xf32>'}}
  %0 = transformer.linear %x, %w, %b : tensor<2x4xf32>, tensor<4xf32>, tensor<5xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case29(%x: tensor<2x4xf32>, %w: tensor<5x3xf32>, %b: tensor<5xf32>) {
  // expected-error@+1 {{'transformer.linear' op input 'tensor<2x4xf32>' has K = 4 but weight 'tensor<5x3xf32>' (NxK) has K = 3}}
  %0 = transformer.linear %x, %w, %b : tensor<2x4xf32>, tensor<5x3xf32>, tensor<5xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case30(%x: tensor<2x4xf32>, %w: tensor<5x4xf32>, %b: tensor<6xf32>) {
  // expected-error@+1 {{'transformer.linear' op bias 'tensor<6xf32>' does not match the N = 5 of weight 'tensor<5x4xf32>'}}
  %0 = transformer.linear %x, %w, %b : tensor<2x4xf32>, tensor<5x4xf32>, tensor<6xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case31(%ids: tensor<3xi32>, %t: tensor<10xf32>) {
  // expected-error@+1 {{'transformer.embedding' op table must have rank 2, got 'tensor<10xf32>'}}
  %0 = transformer.embedding %ids, %t : tensor<3xi32>, tensor<10xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case32(%ids: tensor<3xf32>, %t: tensor<10x4xf32>) {
  // expected-error@+1 {{'transformer.embedding' op operand #0 must be tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = transformer.embedding %ids, %t : tensor<3xf32>, tensor<10x4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case33(%ids: tensor<3xi32>, %t: tensor<10x4xf32>) {
  // expected-error@+1 {{'transformer.embedding' op result type 'tensor<3x5xf32>' does not match the type 'tensor<3x4xf32>' inferred from the operands}}
  %0 = transformer.embedding %ids, %t : tensor<3xi32>, tensor<10x4xf32> -> tensor<3x5xf32>
  return
}

// -----

func.func @case34(%x: tensor<2x7xf32>) {
  // expected-error@+1 {{'transformer.rope' op the last dimension of the input 'tensor<2x7xf32>' must be even (rope rotates pairs)}}
  %0 = transformer.rope %x : tensor<2x7xf32> -> tensor<2x7xf32>
  return
}

// -----

func.func @case35(%x: tensor<8xf32>) {
  // expected-error@+1 {{'transformer.rope' op input must have rank >= 2, got 'tensor<8xf32>'}}
  %0 = transformer.rope %x : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @case36(%x: tensor<2x8xf32>) {
  // expected-error@+1 {{'transformer.rope' op base must be a finite positive number, got 0}}
  %0 = transformer.rope %x {base = 0.0 : f32} : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @case37() {
  // expected-error@+1 {{'transformer.create_causal_mask' op result must have a static shape of rank >= 2, got 'tensor<?x4xf32>'}}
  %0 = transformer.create_causal_mask : tensor<?x4xf32>
  return
}

// -----

func.func @case38() {
  // expected-error@+1 {{'transformer.create_causal_mask' op result must have a static shape of rank >= 2, got 'tensor<4xf32>'}}
  %0 = transformer.create_causal_mask : tensor<4xf32>
  return
}

// -----

func.func @case39() {
  // expected-error@+1 {{'transformer.create_causal_mask' op result must have a static shape of rank >= 2, got 'tensor<*xf32>'}}
  %0 = transformer.create_causal_mask : tensor<*xf32>
  return
}

// -----

func.func @case40(%x: tensor<2x4x6xf32>, %m: tensor<4x5xf32>) {
  // expected-error@+1 {{'transformer.masked_softmax' op mask 'tensor<4x5xf32>' does not broadcast to the input 'tensor<2x4x6xf32>'}}
  %0 = transformer.masked_softmax %x, %m : tensor<2x4x6xf32>, tensor<4x5xf32> -> tensor<2x4x6xf32>
  return
}

// -----

func.func @case41(%x: tensor<4x6xf32>, %m: tensor<3x4x6xf32>) {
  // expected-error@+1 {{'transformer.masked_softmax' op mask 'tensor<3x4x6xf32>' does not broadcast to the input 'tensor<4x6xf32>'}}
  %0 = transformer.masked_softmax %x, %m : tensor<4x6xf32>, tensor<3x4x6xf32> -> tensor<4x6xf32>
  return
}

// -----

func.func @case42(%x: tensor<6xf32>, %m: tensor<6xf32>) {
  // expected-error@+1 {{'transformer.masked_softmax' op input must have rank >= 2, got 'tensor<6xf32>'}}
  %0 = transformer.masked_softmax %x, %m : tensor<6xf32>, tensor<6xf32> -> tensor<6xf32>
  return
}

// -----

func.func @case43(%q: tensor<2x4x8xf32>, %k: tensor<6x8xf32>) {
  // expected-error@+1 {{'transformer.attention' op query, key and value must have the same rank, got 'tensor<2x4x8xf32>', 'tensor<6x8xf32>' and 'tensor<6x8xf32>'}}
  %0 = transformer.attention %q, %k, %k : tensor<2x4x8xf32>, tensor<6x8xf32>, tensor<6x8xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case44(%q: tensor<8xf32>) {
  // expected-error@+1 {{'transformer.attention' op query must have rank >= 2, got 'tensor<8xf32>'}}
  %0 = transformer.attention %q, %q, %q : tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case45(%q: tensor<2x4x8xf32>, %k: tensor<3x6x8xf32>) {
  // expected-error@+1 {{'transformer.attention' op batch dimensions differ: query 'tensor<2x4x8xf32>', key 'tensor<3x6x8xf32>', value 'tensor<3x6x8xf32>'}}
  %0 = transformer.attention %q, %k, %k : tensor<2x4x8xf32>, tensor<3x6x8xf32>, tensor<3x6x8xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case46(%q: tensor<4x8xf32>, %k: tensor<6x4xf32>) {
  // expected-error@+1 {{'transformer.attention' op head dimensions differ: query 'tensor<4x8xf32>' and key 'tensor<6x4xf32>'}}
  %0 = transformer.attention %q, %k, %k : tensor<4x8xf32>, tensor<6x4xf32>, tensor<6x4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case47(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<5x8xf32>) {
  // expected-error@+1 {{'transformer.attention' op key 'tensor<6x8xf32>' and value 'tensor<5x8xf32>' have different sequence lengths}}
  %0 = transformer.attention %q, %k, %v : tensor<4x8xf32>, tensor<6x8xf32>, tensor<5x8xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case48(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %m: tensor<6x4xf32>) {
  // expected-error@+1 {{'transformer.attention' op mask 'tensor<6x4xf32>' does not broadcast to the scores 'tensor<4x6xf32>'}}
  %0 = transformer.attention %q, %k, %k mask(%m : tensor<6x4xf32>) : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x8xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case49(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>) {
  // expected-error@+1 {{'transformer.attention' op scale must be finite and non-zero}}
  %0 = transformer.attention %q, %k, %k {scale = 0.0 : f32} : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x8xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case50(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x2xf32>) {
  // expected-error@+1 {{'transformer.attention' op result type 'tensor<4x8xf32>' does not match the type 'tensor<4x2xf32>' inferred from the operands}}
  %0 = transformer.attention %q, %k, %v : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x2xf32> -> tensor<4x8xf32>
  return
}

// -----

// Infinite and NaN attributes are rejected like negative or zero ones.
func.func @case51(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error@+1 {{'transformer.layer_norm' op epsilon must be a finite non-negative number, got INF}}
  %0 = transformer.layer_norm %x, %g, %g {epsilon = 0x7F800000 : f32} : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @case52(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error@+1 {{'transformer.layer_norm' op epsilon must be a finite non-negative number, got nan}}
  %0 = transformer.layer_norm %x, %g, %g {epsilon = 0x7FC00000 : f32} : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @case53(%x: tensor<2x8xf32>) {
  // expected-error@+1 {{'transformer.rope' op base must be a finite positive number, got INF}}
  %0 = transformer.rope %x {base = 0x7F800000 : f32} : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @case54(%x: tensor<2x8xf32>) {
  // expected-error@+1 {{'transformer.rope' op base must be a finite positive number, got nan}}
  %0 = transformer.rope %x {base = 0x7FC00000 : f32} : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @case55(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>) {
  // expected-error@+1 {{'transformer.attention' op scale must be finite and non-zero}}
  %0 = transformer.attention %q, %k, %k {scale = 0x7F800000 : f32} : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x8xf32> -> tensor<*xf32>
  return
}

// -----

func.func @case56(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>) {
  // expected-error@+1 {{'transformer.attention' op scale must be finite and non-zero}}
  %0 = transformer.attention %q, %k, %k {scale = 0x7FC00000 : f32} : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x8xf32> -> tensor<*xf32>
  return
}

// -----

func.func @mask_window_zero() {
  // expected-error@+1 {{'transformer.create_causal_mask' op window must be at least 1, got 0}}
  %m = transformer.create_causal_mask {window = 0 : i64} : tensor<4x4xf32>
  return
}

// -----

func.func @attention_window_negative(%q: tensor<4x8xf32>) {
  // expected-error@+1 {{'transformer.attention' op window must be at least 1, got -2}}
  %0 = transformer.attention %q, %q, %q {causal, window = -2 : i64} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @attention_window_without_causal(%q: tensor<4x8xf32>) {
  // expected-error@+1 {{'transformer.attention' op window requires the causal attribute}}
  %0 = transformer.attention %q, %q, %q {window = 2 : i64} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// Only weights may be 16-bit: an activation (matmul's lhs) may not.
func.func @half_lhs(%a: tensor<3x4xbf16>, %b: tensor<4x5xf32>) {
  // expected-error@+1 {{'transformer.matmul' op operand #0 must be tensor of 32-bit float values, but got 'tensor<3x4xbf16>'}}
  %0 = transformer.matmul %a, %b : tensor<3x4xbf16>, tensor<4x5xf32> -> tensor<3x5xf32>
  return
}

// -----

func.func @f64_weight(%x: tensor<2x4xf32>, %w: tensor<5x4xf64>, %b: tensor<5xf32>) {
  // expected-error@+1 {{'transformer.linear' op operand #1 must be tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<5x4xf64>'}}
  %0 = transformer.linear %x, %w, %b : tensor<2x4xf32>, tensor<5x4xf64>, tensor<5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @half_result(%ids: tensor<3xi32>, %table: tensor<10x4xf16>) {
  // expected-error@+1 {{'transformer.embedding' op result #0 must be tensor of 32-bit float values, but got 'tensor<3x4xf16>'}}
  %0 = transformer.embedding %ids, %table : tensor<3xi32>, tensor<10x4xf16> -> tensor<3x4xf16>
  return
}

// -----

func.func @half_bias(%x: tensor<2x4xf32>, %w: tensor<5x4xbf16>, %b: tensor<5xbf16>) {
  // expected-error@+1 {{'transformer.linear' op operand #2 must be tensor of 32-bit float values, but got 'tensor<5xbf16>'}}
  %0 = transformer.linear %x, %w, %b : tensor<2x4xf32>, tensor<5x4xbf16>, tensor<5xbf16> -> tensor<2x5xf32>
  return
}

// -----

func.func @dequantize_block_bytes(%q: tensor<6x2x18xi8>) {
  // expected-error@+1 {{'transformer.dequantize' op the last dimension of the input 'tensor<6x2x18xi8>' must be 34, the bytes of a q8_0 block, got 18}}
  %0 = transformer.dequantize q8_0 %q : tensor<6x2x18xi8> -> tensor<6x64xf32>
  return
}

// -----

func.func @dequantize_row_length(%q: tensor<6x3x18xi8>) {
  // expected-error@+1 {{'transformer.dequantize' op the rows of the result 'tensor<6x100xf32>' must be a multiple of 32 long, the block size of q4_0, got 100}}
  %0 = transformer.dequantize q4_0 %q : tensor<6x3x18xi8> -> tensor<6x100xf32>
  return
}

// -----

func.func @dequantize_blocks(%q: tensor<6x3x34xi8>) {
  // expected-error@+1 {{'transformer.dequantize' op result type 'tensor<6x64xf32>'}}
  %0 = transformer.dequantize q8_0 %q : tensor<6x3x34xi8> -> tensor<6x64xf32>
  return
}

// -----

func.func @dequantize_rank(%q: tensor<34xi8>) {
  // expected-error@+1 {{'transformer.dequantize' op input must have rank >= 2, got 'tensor<34xi8>'}}
  %0 = transformer.dequantize q8_0 %q : tensor<34xi8> -> tensor<32xf32>
  return
}

// -----

func.func @dequantize_element(%q: tensor<6x2x34xi32>) {
  // expected-error@+1 {{'transformer.dequantize' op operand #0 must be tensor of 8-bit signless integer values, but got 'tensor<6x2x34xi32>'}}
  %0 = transformer.dequantize q8_0 %q : tensor<6x2x34xi32> -> tensor<6x64xf32>
  return
}

// -----

func.func @dequantize_format(%q: tensor<6x2x34xi8>) {
  // expected-error@+1 {{expected string or keyword containing one of the following enum values for attribute 'format' [q8_0, q4_0]}}
  %0 = transformer.dequantize q5_0 %q : tensor<6x2x34xi8> -> tensor<6x64xf32>
  return
}

// -----

func.func @dequantize_dynamic_block(%q: tensor<6x2x?xi8>) {
  // expected-error@+1 {{'transformer.dequantize' op the last dimension of the input 'tensor<6x2x?xi8>' must be 34, the bytes of a q8_0 block, got ?}}
  %0 = transformer.dequantize q8_0 %q : tensor<6x2x?xi8> -> tensor<6x64xf32>
  return
}


// -----

func.func @rms_norm_gamma_rank(%x: tensor<2x8xf32>) {
  // expected-error@+1 {{'transformer.rms_norm' op gamma must have rank 1, got 'tensor<2x8xf32>'}}
  %0 = transformer.rms_norm %x, %x : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @rms_norm_gamma_size(%x: tensor<2x8xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{'transformer.rms_norm' op gamma 'tensor<4xf32>' does not match the last dimension of the input 'tensor<2x8xf32>'}}
  %0 = transformer.rms_norm %x, %g : tensor<2x8xf32>, tensor<4xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @rms_norm_epsilon(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error@+1 {{'transformer.rms_norm' op epsilon must be a finite non-negative number, got -1}}
  %0 = transformer.rms_norm %x, %g {epsilon = -1.0 : f32} : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @rms_norm_result(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error@+1 {{'transformer.rms_norm' op result type 'tensor<2x4xf32>' does not match the type 'tensor<2x8xf32>' inferred from the operands}}
  %0 = transformer.rms_norm %x, %g : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @silu_rank(%x: tensor<f32>) {
  // expected-error@+1 {{'transformer.silu' op input must have rank >= 1, got 'tensor<f32>'}}
  %0 = transformer.silu %x : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @rope_freqs_size(%x: tensor<2x3x8xf32>, %f: tensor<8xf32>) {
  // expected-error@+1 {{'transformer.rope' op freqs 'tensor<8xf32>' must have D/2 = 4 entries, one per rotated pair of the input 'tensor<2x3x8xf32>'}}
  %0 = transformer.rope %x freqs(%f : tensor<8xf32>) {rotate_half} : tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  return
}

// -----

func.func @rope_freqs_rank(%x: tensor<2x3x8xf32>, %f: tensor<1x4xf32>) {
  // expected-error@+1 {{'transformer.rope' op freqs must have rank 1, got 'tensor<1x4xf32>'}}
  %0 = transformer.rope %x freqs(%f : tensor<1x4xf32>) : tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  return
}

// -----

func.func @attention_head_groups(%q: tensor<1x6x4x8xf32>, %k: tensor<1x4x4x8xf32>) {
  // expected-error@+1 {{'transformer.attention' op batch dimensions differ: query 'tensor<1x6x4x8xf32>', key 'tensor<1x4x4x8xf32>', value 'tensor<1x4x4x8xf32>' (the query's 6 heads are not a multiple of the key's 4)}}
  %0 = transformer.attention %q, %k, %k : tensor<1x6x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32> -> tensor<*xf32>
  return
}

// -----

func.func @attention_key_value_heads(%q: tensor<1x4x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x1x4x8xf32>) {
  // expected-error@+1 {{'transformer.attention' op batch dimensions differ: key 'tensor<1x2x4x8xf32>' and value 'tensor<1x1x4x8xf32>'}}
  %0 = transformer.attention %q, %k, %v : tensor<1x4x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32> -> tensor<*xf32>
  return
}

// -----

func.func @attention_group_batch(%q: tensor<2x4x4x8xf32>, %k: tensor<1x2x4x8xf32>) {
  // expected-error@+1 {{'transformer.attention' op batch dimensions differ: query 'tensor<2x4x4x8xf32>', key 'tensor<1x2x4x8xf32>', value 'tensor<1x2x4x8xf32>'}}
  %0 = transformer.attention %q, %k, %k : tensor<2x4x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<*xf32>
  return
}
