"""The Block view's numbers in PyTorch float64, as an oracle: for every layer and position of a GPT-2 folder (from
gpt2_reference.py's definition) or a Llama, Qwen or NeoX folder (family_reference.py's), the stream entering the
layer, the first norm's output, what attention adds, the second norm's output, the MLP's pre-activations and
neurons, what the MLP adds; then the final norm's output and the logits at every position.

usage: python3 block_reference.py TESTS_DIR FOLDER IDS EDITS_JSON ABLATIONS_JSON
  IDS: comma-separated token ids; EDITS_JSON: session-file edits ({"layer" (1-based), "weight", "row", "col",
  "value"}); ABLATIONS_JSON: {"layer", "head"} (1-based), heads zeroed in the output projection.
Prints one JSON object: streams [layer + 1][n][d], and per layer (0-based lists) x, attention, normed, up, gate
(null for a GELU MLP), act, mlp ([n][d] or [n][neurons]); final [n][d], logits [n][vocab].
"""

import json
import os
import sys

import torch


def gpt2(g, folder, ids, edits, ablations):
    L, d, H, eps, t = g.load(folder, edits, [(a["layer"] - 1, a["head"] - 1) for a in ablations])
    dk = d // H
    n = len(ids)
    causal = torch.tril(torch.ones(n, n, dtype=torch.bool))
    x = t["wte.weight"][torch.tensor(ids)] + t["wpe.weight"][:n]
    out = {k: [] for k in ("streams", "x", "attention", "normed", "up", "gate", "act", "mlp")}
    for layer in range(L):
        p = f"h.{layer}."
        out["streams"].append(x.tolist())
        a = g.layer_norm(x, t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps)
        q, k, v = (a @ t[p + "attn.c_attn.weight"] + t[p + "attn.c_attn.bias"]).split(d, dim=1)
        q, k, v = (m.reshape(n, H, dk).transpose(0, 1) for m in (q, k, v))
        scores = ((q @ k.transpose(1, 2)) / dk ** 0.5).masked_fill(~causal, float("-inf"))
        z = (torch.softmax(scores, dim=-1) @ v).transpose(0, 1).reshape(n, d)
        attn = z @ t[p + "attn.c_proj.weight"] + t[p + "attn.c_proj.bias"]
        x = x + attn
        h = g.layer_norm(x, t[p + "ln_2.weight"], t[p + "ln_2.bias"], eps)
        up = h @ t[p + "mlp.c_fc.weight"] + t[p + "mlp.c_fc.bias"]
        act = g.gelu_new(up)
        m = act @ t[p + "mlp.c_proj.weight"] + t[p + "mlp.c_proj.bias"]
        x = x + m
        for key, value in (("x", a), ("attention", attn), ("normed", h), ("up", up), ("act", act), ("mlp", m)):
            out[key].append(value.tolist())
        out["gate"].append(None)
    out["streams"].append(x.tolist())
    final = g.layer_norm(x, t["ln_f.weight"], t["ln_f.bias"], eps)
    out["final"] = final.tolist()
    out["logits"] = (final @ t["wte.weight"].T).tolist()
    return out


def family(f, folder, ids, edits, ablations):
    model = f.Model(folder, edits, ablations)
    run = model.forward(ids)
    out = {"streams": [s.tolist() for s in run["streams"]], "x": run["x"], "attention": run["output"]}
    for key in ("normed", "up", "gate", "act"):
        out[key] = [parts[key].tolist() if key in parts else None for parts in run["mlp_parts"]]
    out["mlp"] = [parts["output"].tolist() for parts in run["mlp_parts"]]
    out["final"] = model.norm(run["streams"][-1], model.final).tolist()
    out["logits"] = run["logits"].tolist()
    return out


def main():
    sys.path.insert(0, sys.argv[1])
    folder, ids = sys.argv[2], [int(i) for i in sys.argv[3].split(",")]
    edits, ablations = json.loads(sys.argv[4]), json.loads(sys.argv[5])
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    if "n_layer" in config:
        import gpt2_reference
        out = gpt2(gpt2_reference, folder, ids, edits, ablations)
    else:
        import family_reference
        out = family(family_reference, folder, ids, edits, ablations)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    with torch.no_grad():
        main()
