"""Writes a Llama-family checkpoint with random BF16 weights, shaped as a real model, for scripts/bench.

usage: make_family_checkpoint.py SHAPE FOLDER TOKENIZER_FOLDER
  SHAPE: smollm2-135m (30 layers, 576 wide, 9 heads of 3 K/V heads, 49 152 tokens) or llama-3.2-1b (16 layers,
  2048 wide, 32 heads of 8 K/V heads, 128 256 tokens, Llama 3's rope scaling). The tensors are written one at a
  time, in blocks, so a 2.5 GB checkpoint costs little memory to write; tokenizer.json and tokenizer_config.json
  are copied from TOKENIZER_FOLDER (the benchmark folds ids into the vocabulary where it is smaller). Nothing is
  written when FOLDER/config.json exists already with the same configuration.
"""

import json
import math
import os
import shutil
import struct
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from family_reference import shapes  # noqa: E402

SHAPES = {
    "smollm2-135m": dict(num_hidden_layers=30, hidden_size=576, num_attention_heads=9, num_key_value_heads=3,
                         intermediate_size=1536, vocab_size=49152, max_position_embeddings=8192, rms_norm_eps=1e-5,
                         rope_theta=100000.0, tie_word_embeddings=True, attention_bias=False, hidden_act="silu"),
    "llama-3.2-1b": dict(num_hidden_layers=16, hidden_size=2048, num_attention_heads=32, num_key_value_heads=8,
                         intermediate_size=8192, vocab_size=128256, max_position_embeddings=131072,
                         rms_norm_eps=1e-5, rope_theta=500000.0, tie_word_embeddings=True, attention_bias=False,
                         hidden_act="silu", head_dim=64,
                         rope_scaling={"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                                       "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}),
}


def values(name, shape, generator):
    """The tensor's random values, block by block of rows, as BF16 bytes."""
    rows = shape[0]
    cols = shape[1] if len(shape) > 1 else 1
    block = max(1, (1 << 22) // cols)
    for start in range(0, rows, block):
        count = min(block, rows - start)
        z = torch.randn((count, cols), generator=generator)
        if "norm" in name:
            z = 1.0 + 0.1 * z
        elif "embed_tokens" not in name:
            z = z * (2.0 / math.sqrt(cols))
        yield z.to(torch.bfloat16).view(torch.int16).numpy().tobytes()


def main():
    shape_name, folder, tokenizer = sys.argv[1], sys.argv[2], sys.argv[3]
    config = dict(SHAPES[shape_name], architectures=["LlamaForCausalLM"], model_type="llama")
    config_path = os.path.join(folder, "config.json")
    if os.path.exists(config_path) and os.path.exists(os.path.join(folder, "model.safetensors")):
        with open(config_path) as f:
            if json.load(f) == config:
                return
    os.makedirs(folder, exist_ok=True)
    tensors = [(name, list(s)) for name, s in shapes(config)]
    header, offset = {}, 0
    for name, s in tensors:
        size = 2 * math.prod(s)
        header[name] = {"dtype": "BF16", "shape": s, "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    generator = torch.Generator().manual_seed(1)
    partial = os.path.join(folder, "model.safetensors.partial")
    with open(partial, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for name, s in tensors:
            for chunk in values(name, s, generator):
                f.write(chunk)
    os.replace(partial, os.path.join(folder, "model.safetensors"))
    for file in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(tokenizer, file), os.path.join(folder, file))
    with open(config_path, "w") as f:
        json.dump(config, f, indent=2)


if __name__ == "__main__":
    main()
