"""The attention options of SPEC section 6 (rotary positions, K/V heads, q/k norm) in PyTorch float64, written from
transformers' published definitions: LlamaRotaryEmbedding's default frequencies, rotate_half and
apply_rotary_pos_emb (modeling_llama.py), repeat_kv (modeling_llama.py), Qwen3RMSNorm applied to each head's q and
k before the rotation (modeling_qwen3.py), and GPT-NeoX's partial rotary (modeling_gpt_neox.py: the first
rotary_ndims = int(head_size * rotary_pct) dimensions turn, the rest pass). An oracle for the engine, independent
of its code.

usage: python3 options_reference.py SESSION_FILE...
  reads each session file (SPEC section 2 with the options of section 6; an optional top-level
  "reference_frequencies" replaces the default inverse frequencies, as a rope_scaling would) and prints one JSON
  list, per file: {"x", "heads": [{queries_unrotated, keys_unrotated, queries, keys, values, scores, weights,
  outputs}], "concat", "output"}; queries_unrotated and keys_unrotated are null without rotary positions.
"""

import json
import math
import sys

import torch


def tensor(rows):
    return torch.tensor(rows, dtype=torch.float64)


def sinusoidal(n, d):
    # Vaswani et al. (2017): PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d))
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    even = torch.arange(0, d, 2, dtype=torch.float64)
    angles = pos / 10000.0 ** (even / d)  # n x ceil(d / 2)
    pe = torch.zeros(n, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles[:, : d // 2])
    return pe


class RMSNorm:
    """Qwen3RMSNorm: weight * (x * rsqrt(mean(x^2) + eps)), over the last dimension (one head's width)."""

    def __init__(self, weight, eps):
        self.weight = weight
        self.eps = eps

    def __call__(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(variance + self.eps))


def default_inverse_frequencies(base, dim):
    # LlamaRotaryEmbedding (rope_type "default"): 1 / base^(arange(0, dim, 2) / dim)
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(torch.float64) / dim))


def rotary_cos_sin(inv_freq, position_ids):
    # LlamaRotaryEmbedding.forward: freqs = positions x inv_freq, emb = cat(freqs, freqs)
    freqs = position_ids[:, None].to(torch.float64) * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin):
    # cos, sin: n x dim, broadcast over the heads (unsqueeze_dim=1 of batch x heads x n x dim)
    cos = cos[None, None]
    sin = sin[None, None]
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


def repeat_kv(hidden_states, n_rep):
    # batch x kv_heads x n x head_dim -> batch x kv_heads * n_rep x n x head_dim, each K/V head n_rep times in a row
    batch, kv_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, kv_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, kv_heads * n_rep, slen, head_dim)


def linear(x, w, b):
    # nn.Linear with weight w^T: the session's weights are in the row convention x . W
    return torch.nn.functional.linear(x, w.T, b)


def run(session):
    o = session.get("options", {})
    w = session["weights"]
    heads = o.get("heads", 1)
    kv_heads = o.get("kv_heads", heads)
    x = tensor(session["embeddings"])
    n, d = x.shape
    encoding = o.get("positional_encoding", "none")
    if encoding == "sinusoidal":
        x = x + sinusoidal(n, d)
    W_Q, W_K, W_V = tensor(w["query"]), tensor(w["key"]), tensor(w["value"])
    b = {k: tensor(w[k]) if w.get(k) is not None else None
         for k in ("query_bias", "key_bias", "value_bias", "output_bias")}
    head_dim = W_Q.shape[1] // heads
    v_dim = W_V.shape[1] // kv_heads

    # batch x n x heads x head_dim, then heads first (the attention modules' view + transpose(1, 2))
    q = linear(x, W_Q, b["query_bias"]).view(1, n, heads, head_dim).transpose(1, 2)
    k = linear(x, W_K, b["key_bias"]).view(1, n, kv_heads, head_dim).transpose(1, 2)
    v = linear(x, W_V, b["value_bias"]).view(1, n, kv_heads, v_dim).transpose(1, 2)

    if o.get("qk_norm", False):
        eps = o.get("qk_norm_epsilon", 1e-6)
        ones = torch.ones(head_dim, dtype=torch.float64)
        q_norm = RMSNorm(tensor(w["query_norm"]) if w.get("query_norm") else ones, eps)
        k_norm = RMSNorm(tensor(w["key_norm"]) if w.get("key_norm") else ones, eps)
        q, k = q_norm(q), k_norm(k)

    q_unrotated = k_unrotated = None
    if encoding == "rotary":
        q_unrotated, k_unrotated = q, k
        rotary_ndims = int(head_dim * o.get("rotary_fraction", 1.0))  # GPT-NeoX: int(head_size * rotary_pct)
        rotary_ndims -= rotary_ndims % 2  # the engine's rule for an odd width, which transformers does not take
        if "reference_frequencies" in session:
            inv_freq = tensor(session["reference_frequencies"])
        else:
            inv_freq = default_inverse_frequencies(o.get("rope_theta", 10000.0), rotary_ndims)
        cos, sin = rotary_cos_sin(inv_freq, torch.arange(n))
        q_rot, q_pass = q[..., :rotary_ndims], q[..., rotary_ndims:]
        k_rot, k_pass = k[..., :rotary_ndims], k[..., rotary_ndims:]
        q_rot, k_rot = apply_rotary_pos_emb(q_rot, k_rot, cos, sin)
        q = torch.cat((q_rot, q_pass), dim=-1)
        k = torch.cat((k_rot, k_pass), dim=-1)

    groups = heads // kv_heads
    k_unrotated = repeat_kv(k_unrotated, groups) if k_unrotated is not None else None
    k, v = repeat_kv(k, groups), repeat_kv(v, groups)

    # eager attention: scores, scaled (1/sqrt(d_k) when scale is on, then the temperature), masked, softmax
    scores = torch.matmul(q, k.transpose(2, 3))
    factor = (1.0 / math.sqrt(head_dim) if o.get("scale", True) else 1.0) / o.get("temperature", 1.0)
    scaled = scores * factor
    if o.get("mask", "none") == "causal":
        scaled = scaled.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1), float("-inf"))
    weights = torch.softmax(scaled, dim=-1)
    outputs = torch.matmul(weights, v)  # 1 x heads x n x v_dim
    concat = outputs.transpose(1, 2).reshape(n, heads * v_dim)
    output = concat
    if w.get("output") is not None:
        output = linear(concat, tensor(w["output"]), b["output_bias"])

    def listed(t, h):
        return None if t is None else t[0, h].tolist()

    return {
        "x": x.tolist(),
        "heads": [{"queries_unrotated": listed(q_unrotated, h), "keys_unrotated": listed(k_unrotated, h),
                   "queries": listed(q, h), "keys": listed(k, h), "values": listed(v, h),
                   "scores": listed(scores, h), "weights": listed(weights, h), "outputs": listed(outputs, h)}
                  for h in range(heads)],
        "concat": concat.tolist(),
        "output": output.tolist(),
    }


def main():
    results = []
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            results.append(run(json.load(f)))
    print(json.dumps(results))


if __name__ == "__main__":
    main()
