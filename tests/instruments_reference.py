"""The instruments of SPEC §8 on GPT-2 in PyTorch float64, written from their published definitions, as an oracle.

- Logit lens (nostalgebraist 2020): the final LayerNorm and the unembedding applied to the residual stream after
  each block (0: the embeddings).
- Direct logit attribution (TransformerLens, apply_ln_to_stack): each component's output at a position, centred and
  divided by the final LayerNorm's scale of the whole stream there, times ln_f's weight, dotted with the target's
  unembedding row; ln_f's bias and every output bias (attention and MLP) go to "bias".
- Activation patching (Heimersheim & Nanda 2024, denoising): the corrupted run with one activation taken from the
  clean run; metric logit(answer) - logit(wrong) at the last position.
- Greedy generation.

usage: python3 instruments_reference.py TESTS_DIR FOLDER REQUEST_JSON
  REQUEST_JSON: {"ids", "corrupt_ids", "target", "position" (0-based), "answer", "wrong", "edits" (session form),
  "zeroed": [[layer, head], ...] (0-based), "generate": N}
"""

import json
import sys

import torch


def main():
    sys.path.insert(0, sys.argv[1])
    import gpt2_reference as g

    folder = sys.argv[2]
    request = json.loads(sys.argv[3])
    L, d, H, eps, t = g.load(folder, request.get("edits", []), request.get("zeroed", []))
    dk = d // H
    wte = t["wte.weight"]

    def run(ids, patch=None):
        """Streams entering each layer (and the last), each layer's z (n, H, dk), attention and MLP outputs."""
        ids = torch.tensor(ids)
        n = len(ids)
        causal = torch.tril(torch.ones(n, n, dtype=torch.bool))
        x = wte[ids] + t["wpe.weight"][:n]
        streams, zs, mlps = [], [], []
        for layer in range(L):
            p = f"h.{layer}."
            if patch and patch[0] == "resid" and patch[1] == layer:
                x = x.clone()
                x[patch[2]] = patch[3]
            streams.append(x)
            a = g.layer_norm(x, t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps)
            q, k, v = (a @ t[p + "attn.c_attn.weight"] + t[p + "attn.c_attn.bias"]).split(d, dim=1)
            q, k, v = (m.reshape(n, H, dk).transpose(0, 1) for m in (q, k, v))
            scores = ((q @ k.transpose(1, 2)) / dk**0.5).masked_fill(~causal, float("-inf"))
            z = (torch.softmax(scores, dim=-1) @ v).transpose(0, 1)  # n, H, dk
            if patch and patch[0] == "head" and patch[1] == layer:
                z = z.clone()
                z[:, patch[2], :] = patch[3]
            zs.append(z)
            x = x + z.reshape(n, d) @ t[p + "attn.c_proj.weight"] + t[p + "attn.c_proj.bias"]
            m = g.layer_norm(x, t[p + "ln_2.weight"], t[p + "ln_2.bias"], eps)
            mlp = g.gelu_new(m @ t[p + "mlp.c_fc.weight"] + t[p + "mlp.c_fc.bias"]) @ t[p + "mlp.c_proj.weight"]
            mlps.append(mlp)
            x = x + mlp + t[p + "mlp.c_proj.bias"]
        streams.append(x)
        return streams, zs, mlps

    def logits(row):
        return wte @ g.layer_norm(row, t["ln_f.weight"], t["ln_f.bias"], eps)

    ids = request["ids"]
    streams, zs, mlps = run(ids)
    out = {}

    target = request.get("target")
    lens = []
    for s in streams:
        row = []
        for p in range(len(ids)):
            probs = torch.softmax(logits(s[p]), dim=-1)
            cell = {"id": int(torch.argmax(probs)), "probability": float(probs.max())}
            if target is not None:
                cell["target_probability"] = float(probs[target])
            row.append(cell)
        lens.append(row)
    out["lens"] = lens

    position = request.get("position", len(ids) - 1)
    if target is not None:
        x = streams[-1][position]
        scale = torch.sqrt(((x - x.mean()) ** 2).mean() + eps)
        direction = t["ln_f.weight"] * wte[target] / scale

        def share(v):
            return float((v - v.mean()) @ direction)

        bias = float(t["ln_f.bias"] @ wte[target])
        heads, mlp_shares = [], []
        for layer in range(L):
            p = f"h.{layer}."
            wo = t[p + "attn.c_proj.weight"]
            heads.append([share(zs[layer][position, h] @ wo[h * dk : (h + 1) * dk]) for h in range(H)])
            mlp_shares.append(share(mlps[layer][position]))
            bias += share(t[p + "attn.c_proj.bias"]) + share(t[p + "mlp.c_proj.bias"])
        out["attribution"] = {
            "logit": float(logits(x)[target]),
            "embeddings": share(streams[0][position]),
            "heads": heads,
            "mlps": mlp_shares,
            "bias": bias,
        }

    if "corrupt_ids" in request:
        answer, wrong = request["answer"], request["wrong"]

        def metric(result):
            last = logits(result[0][-1][-1])
            return float(last[answer] - last[wrong])

        corrupt = request["corrupt_ids"]
        out["clean"] = metric((streams, zs))
        out["corrupt"] = metric(run(corrupt))
        out["residual"] = [[metric(run(corrupt, ("resid", l, p, streams[l][p]))) for p in range(len(ids))] for l in range(L)]
        out["heads"] = [[metric(run(corrupt, ("head", l, h, zs[l][:, h, :]))) for h in range(H)] for l in range(L)]

    generated = list(ids)
    for _ in range(request.get("generate", 0)):
        s, _, _ = run(generated)
        generated.append(int(torch.argmax(logits(s[-1][-1]))))
    out["generated"] = generated
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    with torch.no_grad():
        main()
