#!/usr/bin/env python3
"""Writes model.safetensors with random weights for a Llama, Qwen2 or
Mistral config.json, with Hugging Face's tensor names and shapes
(model.embed_tokens.weight, model.layers.N.self_attn.q_proj.weight [heads *
head_dim, hidden], ..., model.norm.weight, lm_head.weight when the head is
not tied), using numpy only.

Usage: random_weights.py config.json model.safetensors [--seed N] [--std S]
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "lib"))
import llama_reference  # noqa: E402
import safetensors_io  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--std", type=float, default=0.02)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)
    weights = llama_reference.random_weights(cfg, std=args.std, seed=args.seed)
    safetensors_io.write(args.out, weights, metadata={"format": "pt"})


if __name__ == "__main__":
    main()
