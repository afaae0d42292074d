"""Writes hostile inputs for the robustness tests.

Usage: gen_hostile.py KIND OUT
  nested-regions N   N nested scf.execute_region around a transformer op
  nested-brackets N  a type with N open parentheses
  long-chain N       a function of N chained transformer.relu ops
  binary N           N pseudo-random bytes (fixed seed)
"""

import random
import sys


def nested_regions(n):
    inner = "%y = transformer.relu %x : tensor<4xf32> -> tensor<4xf32>\nscf.yield %y : tensor<4xf32>\n"
    for i in range(n):
        inner = "%%r%d = scf.execute_region -> tensor<4xf32> {\n%s}\nscf.yield %%r%d : tensor<4xf32>\n" % (i, inner, i)
    return ("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
            "%r = scf.execute_region -> tensor<4xf32> {\n" + inner +
            "}\nreturn %r : tensor<4xf32>\n}\n")


def long_chain(n):
    lines = ["func.func @main(%x0: tensor<4xf32>) -> tensor<4xf32> {"]
    for i in range(n):
        lines.append("%%x%d = transformer.relu %%x%d : tensor<4xf32> -> tensor<4xf32>" % (i + 1, i))
    lines.append("return %%x%d : tensor<4xf32>\n}\n" % n)
    return "\n".join(lines)


def main():
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if kind == "binary":
        rng = random.Random(1)
        with open(out, "wb") as f:
            f.write(bytes(rng.randrange(256) for _ in range(n)))
        return
    text = {"nested-regions": nested_regions,
            "nested-brackets": lambda n: "func.func @main() -> tensor<" + "(" * n + "\n",
            "long-chain": long_chain}[kind](n)
    with open(out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
