#!/usr/bin/env python3
"""Writes model.safetensors with random weights for a GPT-2 config.json, in
the published layout (wte.weight, wpe.weight, h.N.ln_1.weight, ...,
h.N.attn.c_attn.weight as [n_embd, 3*n_embd], ..., ln_f.bias), using numpy
only.

Usage: random_weights.py config.json model.safetensors [--seed N]
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "lib"))
import gpt2_reference  # noqa: E402
import safetensors_io  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)
    weights = gpt2_reference.random_weights(cfg, seed=args.seed)
    safetensors_io.write(args.out, weights, metadata={"format": "pt"})


if __name__ == "__main__":
    main()
