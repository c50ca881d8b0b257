"""GPT-2's forward pass in PyTorch float64, written from the model's definition, as an oracle for the engine.

Reads a Hugging Face GPT-2 folder (config.json and model.safetensors; the safetensors header parsed with
json, the values with numpy: F32, F16, BF16; names with or without "transformer."), applies the given weight
edits, and runs the given token ids. Prints one JSON object:
  attentions [layer][head][n][n], x (the shown layer's ln_1 output, n x d), queries/keys/values
  [head][n][d_k] (with their biases), output (concat . W_O + b_O, n x d), logits (vocab, for the last token).

usage: python3 gpt2_reference.py FOLDER IDS SHOWN_LAYER [EDITS_JSON]
  IDS: comma-separated token ids; SHOWN_LAYER: 1-based; EDITS_JSON: a list of
  {"layer" (1-based), "weight", "row", "col", "value"} as in a model session file.
"""

import json
import math
import os
import struct
import sys

import numpy as np
import torch


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    body = data[8 + length :]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        raw = body[begin:end]
        dtype = info["dtype"]
        if dtype == "F32":
            values = np.frombuffer(raw, dtype="<f4").astype(np.float64)
        elif dtype == "F16":
            values = np.frombuffer(raw, dtype="<f2").astype(np.float64)
        elif dtype == "BF16":
            bits = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
            values = bits.view(np.float32).astype(np.float64)
        else:
            raise SystemExit(f"unsupported dtype {dtype}")
        if name.startswith("transformer."):
            name = name[len("transformer.") :]
        tensors[name] = torch.from_numpy(values.reshape(info["shape"]).copy())
    return tensors


def apply_edits(t, edits, d):
    for e in edits:
        h = f"h.{e['layer'] - 1}."
        w, r, c, v = e["weight"], e["row"], e["col"], float(e["value"])
        if w in ("query", "key", "value"):
            t[h + "attn.c_attn.weight"][r, ["query", "key", "value"].index(w) * d + c] = v
        elif w == "output":
            t[h + "attn.c_proj.weight"][r, c] = v
        elif w in ("query_bias", "key_bias", "value_bias"):
            t[h + "attn.c_attn.bias"][["query_bias", "key_bias", "value_bias"].index(w) * d + c] = v
        elif w == "output_bias":
            t[h + "attn.c_proj.bias"][c] = v
        else:
            raise SystemExit(f"unknown weight {w}")


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)  # biased
    return (x - mean) / torch.sqrt(var + eps) * w + b


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def load(folder, edits=(), zeroed=()):
    """A folder's counts L, d, H, its epsilon and its tensors, with the edits written in and the heads of zeroed
    ((layer, head), 0-based) zeroed in c_proj."""
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    L, d, H = config["n_layer"], config["n_embd"], config["n_head"]
    dk = d // H
    t = read_safetensors(os.path.join(folder, "model.safetensors"))
    apply_edits(t, edits, d)
    for layer, head in zeroed:
        t[f"h.{layer}.attn.c_proj.weight"][head * dk : (head + 1) * dk, :] = 0
    return L, d, H, config.get("layer_norm_epsilon", 1e-5), t


def main():
    folder, ids_text, shown = sys.argv[1], sys.argv[2], int(sys.argv[3])
    edits = json.loads(sys.argv[4]) if len(sys.argv) > 4 else []
    L, d, H, eps, t = load(folder, edits)
    dk = d // H
    ids = torch.tensor([int(i) for i in ids_text.split(",")])
    n = len(ids)
    causal = torch.tril(torch.ones(n, n, dtype=torch.bool))

    x = t["wte.weight"][ids] + t["wpe.weight"][:n]
    out = {"attentions": []}
    for layer in range(L):
        p = f"h.{layer}."
        a = layer_norm(x, t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps)
        qkv = a @ t[p + "attn.c_attn.weight"] + t[p + "attn.c_attn.bias"]
        q, k, v = qkv.split(d, dim=1)
        q = q.reshape(n, H, dk).transpose(0, 1)
        k = k.reshape(n, H, dk).transpose(0, 1)
        v = v.reshape(n, H, dk).transpose(0, 1)
        scores = (q @ k.transpose(1, 2)) / math.sqrt(dk)
        scores = scores.masked_fill(~causal, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        heads = weights @ v
        concat = heads.transpose(0, 1).reshape(n, d)
        attn_out = concat @ t[p + "attn.c_proj.weight"] + t[p + "attn.c_proj.bias"]
        out["attentions"].append(weights.tolist())
        if layer + 1 == shown:
            out["x"] = a.tolist()
            out["queries"] = q.tolist()
            out["keys"] = k.tolist()
            out["values"] = v.tolist()
            out["output"] = attn_out.tolist()
        x = x + attn_out
        m = layer_norm(x, t[p + "ln_2.weight"], t[p + "ln_2.bias"], eps)
        m = gelu_new(m @ t[p + "mlp.c_fc.weight"] + t[p + "mlp.c_fc.bias"])
        x = x + (m @ t[p + "mlp.c_proj.weight"] + t[p + "mlp.c_proj.bias"])
    h = layer_norm(x[-1], t["ln_f.weight"], t["ln_f.bias"], eps)
    out["logits"] = (t["wte.weight"] @ h).tolist()
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    with torch.no_grad():
        main()
