"""GPT-2's forward pass as a PyTorch user writes it, float32 on the CPU, for scripts/bench.

usage: torch_gpt2.py FOLDER TOKENS REPETITIONS THREADS [GENERATE]

Reads the checkpoint folder (the weights with the tests' reader, then float32), runs the whole pass (every
layer's attention weights kept, as the engine keeps them, and the next token's logits) on TOKENS token ids
from the same paragraph the engine's benchmark encodes, and prints one JSON object: the median
milliseconds of REPETITIONS runs after one warm-up. With GENERATE, it times instead greedy generation of that
many tokens after the TOKENS, with a key/value cache (each new token runs one row through every layer).
"""

import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from gpt2_reference import read_safetensors  # noqa: E402


def mlp(t, p, x, d, eps):
    """Layer p's MLP on the stream x: ln_2, c_fc, GELU (tanh form), c_proj."""
    m = F.layer_norm(x, (d,), t[p + "ln_2.weight"], t[p + "ln_2.bias"], eps)
    m = F.gelu(torch.addmm(t[p + "mlp.c_fc.bias"], m, t[p + "mlp.c_fc.weight"]), approximate="tanh")
    return torch.addmm(t[p + "mlp.c_proj.bias"], m, t[p + "mlp.c_proj.weight"])


def forward(t, config, ids):
    n, d, heads = len(ids), config["n_embd"], config["n_head"]
    dk, eps = d // heads, config.get("layer_norm_epsilon", 1e-5)
    mask = torch.full((n, n), float("-inf")).triu(1)
    x = t["wte.weight"][ids] + t["wpe.weight"][:n]
    attentions = []
    for layer in range(config["n_layer"]):
        p = f"h.{layer}."
        a = F.layer_norm(x, (d,), t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps)
        q, k, v = torch.addmm(t[p + "attn.c_attn.bias"], a, t[p + "attn.c_attn.weight"]).split(d, dim=1)
        q, k, v = (m.view(n, heads, dk).transpose(0, 1) for m in (q, k, v))
        weights = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(dk) + mask, dim=-1)
        attentions.append(weights)
        concat = (weights @ v).transpose(0, 1).reshape(n, d)
        x = x + torch.addmm(t[p + "attn.c_proj.bias"], concat, t[p + "attn.c_proj.weight"])
        x = x + mlp(t, p, x, d, eps)
    h = F.layer_norm(x[-1:], (d,), t["ln_f.weight"], t["ln_f.bias"], eps)
    return attentions, h @ t["wte.weight"].T


def generate(t, config, ids, count):
    """Greedy generation with a key/value cache: the prompt once, then one row per new token. The new ids."""
    d, heads = config["n_embd"], config["n_head"]
    dk, eps = d // heads, config.get("layer_norm_epsilon", 1e-5)
    cache = [None] * config["n_layer"]
    out, rows, start = [], ids, 0
    for _ in range(count):
        n = len(rows)
        x = t["wte.weight"][rows] + t["wpe.weight"][start:start + n]
        for layer in range(config["n_layer"]):
            p = f"h.{layer}."
            a = F.layer_norm(x, (d,), t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps)
            q, k, v = torch.addmm(t[p + "attn.c_attn.bias"], a, t[p + "attn.c_attn.weight"]).split(d, dim=1)
            if cache[layer] is not None:
                k, v = torch.cat((cache[layer][0], k)), torch.cat((cache[layer][1], v))
            cache[layer] = (k, v)
            q, k, v = (m.view(-1, heads, dk).transpose(0, 1) for m in (q, k, v))
            mask = torch.full((n, start + n), float("-inf")).triu(start + 1)
            weights = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(dk) + mask, dim=-1)
            concat = (weights @ v).transpose(0, 1).reshape(n, d)
            x = x + torch.addmm(t[p + "attn.c_proj.bias"], concat, t[p + "attn.c_proj.weight"])
            x = x + mlp(t, p, x, d, eps)
        h = F.layer_norm(x[-1:], (d,), t["ln_f.weight"], t["ln_f.bias"], eps)
        next_id = int(torch.argmax(h @ t["wte.weight"].T))
        out.append(next_id)
        start += n
        rows = torch.tensor([next_id])
    return out


def bench_ids(tokens):
    """The token ids scripts/bench hands over in AE_BENCH_TOKEN_IDS, the first `tokens` of them."""
    return torch.tensor([int(i) for i in os.environ["AE_BENCH_TOKEN_IDS"].split(",")][:tokens])


def median_ms(run, repetitions):
    """The median milliseconds of `repetitions` calls of run() after one warm-up, in inference mode."""
    times = []
    with torch.inference_mode():
        run()
        for _ in range(repetitions):
            start = time.perf_counter()
            run()
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    folder, tokens, repetitions, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    torch.set_num_threads(threads)
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    t = {name: value.float().contiguous() for name, value in read_safetensors(os.path.join(folder, "model.safetensors")).items()}
    ids = bench_ids(tokens)
    if len(sys.argv) > 5:
        count = int(sys.argv[5])
        with torch.inference_mode():
            new_ids = generate(t, config, ids, count)
        print(json.dumps({"tokens": len(ids), "generated": count, "generated_ids": ",".join(map(str, new_ids)),
                          "generate_ms": median_ms(lambda: generate(t, config, ids, count), repetitions),
                          "runs": repetitions}))
        return
    print(json.dumps({"tokens": len(ids), "forward_ms": median_ms(lambda: forward(t, config, ids), repetitions),
                      "runs": repetitions}))


if __name__ == "__main__":
    main()
