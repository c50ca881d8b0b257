"""The forward pass a PyTorch user would write, float64 on the CPU, for the shapes of bench_engine.

One head: softmax(q @ k.T * s) @ v after the projections q = x @ W_Q, k = x @ W_K, v = x @ W_V.
Several heads: torch.nn.MultiheadAttention (its in- and out-projections, zero biases, per-head weights returned).
Prints one JSON object per shape: the median milliseconds of several runs.
"""

import json
import statistics
import sys
import time

import torch

D_MODEL = 512
D_HEAD = 64


def one_head(n):
    g = torch.Generator().manual_seed(1)
    x = torch.rand(n, D_MODEL, dtype=torch.float64, generator=g) - 0.5
    wq, wk, wv = (torch.rand(D_MODEL, D_HEAD, dtype=torch.float64, generator=g) - 0.5 for _ in range(3))
    s = 1.0 / D_HEAD ** 0.5

    def run():
        q, k, v = x @ wq, x @ wk, x @ wv
        weights = torch.softmax(q @ k.T * s, dim=-1)
        return weights @ v

    return run


def multi_head(n, heads):
    torch.manual_seed(1)
    mha = torch.nn.MultiheadAttention(heads * D_HEAD, heads, batch_first=True, dtype=torch.float64)
    mha.eval()
    with torch.no_grad():  # zero biases: torch 1.13's inference path refuses bias=False
        mha.in_proj_bias.zero_()
        mha.out_proj.bias.zero_()
    x = torch.rand(1, n, heads * D_HEAD, dtype=torch.float64) - 0.5

    def run():
        return mha(x, x, x, need_weights=True, average_attn_weights=False)

    return run


def main():
    sizes = [int(a) for a in sys.argv[1].split(",")]
    head_counts = [int(a) for a in sys.argv[2].split(",")]
    threads = int(sys.argv[3])
    torch.set_num_threads(threads)
    with torch.inference_mode():
        for heads in head_counts:
            for n in sizes:
                run = one_head(n) if heads == 1 else multi_head(n, heads)
                big = n >= 2048
                if not big:
                    run()  # warm-up
                times = []
                deadline = time.perf_counter() + 0.5
                while len(times) < (3 if big else 7) or (not big and time.perf_counter() < deadline and len(times) < 50):
                    start = time.perf_counter()
                    run()
                    times.append((time.perf_counter() - start) * 1e3)
                print(json.dumps({"n": n, "heads": heads, "ms": statistics.median(times), "runs": len(times)}),
                      flush=True)


if __name__ == "__main__":
    main()
