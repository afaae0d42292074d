// A user's schedule: register tiles of 4 x 16 instead of 8 x 32, no threads.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match attributes {transformer.contraction = "mnk_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    %tiled, %m, %n, %k = transform.structured.tile_using_for %mm tile_sizes [4, 16, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %tiled {create_named_contraction} : !transform.any_op
    %funcs = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
    } : !transform.any_op
    transform.print %funcs {name = "after the user schedule"} : !transform.any_op
    transform.yield
  }
}
