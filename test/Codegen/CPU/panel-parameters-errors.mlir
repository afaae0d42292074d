// RUN: transformer-opt %s --split-input-file --verify-diagnostics

// What --transformer-cpu-panel-parameters writes is verified when read
// back: a panel width is a positive integer ...
// expected-error@+1 {{'transformer.panels' must be a positive integer, on argument 0}}
func.func @zero(%w: tensor<64x64xf32> {transformer.panels = 0 : i64}) -> tensor<64x64xf32> {
  return %w : tensor<64x64xf32>
}

// -----

// ... the module's record is a dictionary ...
// expected-error@+1 {{'transformer.panel_parameters' must be a dictionary on a module}}
module attributes {transformer.panel_parameters = [32]} {
}

// -----

// ... of one array of widths per function.
// expected-error@+1 {{'transformer.panel_parameters': 'main' must be an array<i64> of panel widths (0 for none)}}
module attributes {transformer.panel_parameters = {main = array<i64: 0, -32>}} {
}
