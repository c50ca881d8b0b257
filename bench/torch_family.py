"""A Llama-family forward pass as a PyTorch user runs it, float32 on the CPU, for scripts/bench.

usage: torch_family.py FOLDER TOKENS REPETITIONS THREADS

Reads the checkpoint (model.safetensors, BF16/F16/F32, widened to float32 as from_pretrained(torch_dtype=float32)
would), runs the whole pass as transformers' LlamaForCausalLM defines it (RMSNorm, rotary positions with the
config's scaling, grouped K/V heads repeated, SwiGLU; every layer's attention weights kept, as the engine keeps
them; the next token's logits) on the ids in AE_BENCH_TOKEN_IDS, and prints one JSON object: the median
milliseconds of REPETITIONS runs after one warm-up, and the resident memory.
"""

import json
import math
import mmap
import os
import struct
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from family_reference import inverse_frequencies  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_gpt2 import bench_ids, median_ms  # noqa: E402

DTYPES = {"BF16": torch.bfloat16, "F16": torch.float16, "F32": torch.float32}


def read_float32(path):
    """Every tensor of a safetensors file as a float32 tensor."""
    with open(path, "rb") as f:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = (8 + length + o for o in info["data_offsets"])
        stored = torch.frombuffer(bytearray(data[begin:end]), dtype=DTYPES[info["dtype"]])
        out[name.removeprefix("model.")] = stored.to(torch.float32).reshape(info["shape"])
    return out


def rms_norm(x, w, eps):
    return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def forward(t, c, ids):
    n, heads, kv = len(ids), c["num_attention_heads"], c["num_key_value_heads"]
    hd = c.get("head_dim", c["hidden_size"] // heads)
    eps = c["rms_norm_eps"]
    inv = inverse_frequencies(c, hd).to(torch.float32)
    angles = torch.outer(torch.arange(n, dtype=torch.float32), inv)
    cos, sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()
    mask = torch.full((n, n), float("-inf")).triu(1)
    x = t["embed_tokens.weight"][ids]
    attentions = []
    for layer in range(c["num_hidden_layers"]):
        p = f"layers.{layer}."
        a = rms_norm(x, t[p + "input_layernorm.weight"], eps)
        q = (a @ t[p + "self_attn.q_proj.weight"].T).view(n, heads, hd).transpose(0, 1)
        k = (a @ t[p + "self_attn.k_proj.weight"].T).view(n, kv, hd).transpose(0, 1)
        v = (a @ t[p + "self_attn.v_proj.weight"].T).view(n, kv, hd).transpose(0, 1)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(heads // kv, 0), v.repeat_interleave(heads // kv, 0)
        weights = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(hd) + mask, dim=-1)
        attentions.append(weights)
        x = x + (weights @ v).transpose(0, 1).reshape(n, heads * hd) @ t[p + "self_attn.o_proj.weight"].T
        m = rms_norm(x, t[p + "post_attention_layernorm.weight"], eps)
        m = F.silu(m @ t[p + "mlp.gate_proj.weight"].T) * (m @ t[p + "mlp.up_proj.weight"].T)
        x = x + m @ t[p + "mlp.down_proj.weight"].T
    h = rms_norm(x[-1:], t["norm.weight"], eps)
    head = t["embed_tokens.weight"] if c.get("tie_word_embeddings") else t["lm_head.weight"]
    return attentions, h @ head.T


def resident_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return None


def main():
    folder, tokens, repetitions, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    torch.set_num_threads(threads)
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    start = time.perf_counter()
    t = read_float32(os.path.join(folder, "model.safetensors"))
    load_ms = (time.perf_counter() - start) * 1e3
    ids = bench_ids(tokens)
    print(json.dumps({"tokens": len(ids), "forward_ms": median_ms(lambda: forward(t, config, ids), repetitions),
                      "runs": repetitions, "load_ms": load_ms, "rss_mib": resident_mib()}))


if __name__ == "__main__":
    main()
