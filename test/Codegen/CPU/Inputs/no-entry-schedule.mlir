module attributes {transform.with_named_sequence} {
  transform.named_sequence @not_main(%root: !transform.any_op {transform.readonly}) {
    transform.yield
  }
}
