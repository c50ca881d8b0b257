"""The decoder families of SPEC section 6 in PyTorch float64, written from transformers' published definitions
(modeling_llama.py, modeling_qwen2.py, modeling_qwen3.py, modeling_gpt_neox.py), as an oracle for the engine; and
the small random checkpoints the tests run them on.

usage:
  python3 family_reference.py write CASE FOLDER [NAN_TENSOR]
      writes config.json and model.safetensors (or shards and their index) of a named case with seeded random
      weights; NAN_TENSOR, when given, gets a NaN in its second entry.
  python3 family_reference.py write-all ROOT
      writes every case, each into ROOT/CASE.
  python3 family_reference.py run FOLDER IDS [EDITS_JSON [ABLATIONS_JSON]]
      reads the folder (config.json, model.safetensors or the shards its index names; F32, F16, BF16) and runs
      the comma-separated token ids, with the weight edits of a session file applied ({"layer" (1-based),
      "weight", "row", "col", "value"}, in the row convention x.W of SPEC section 1) and the heads of
      ABLATIONS_JSON ({"layer", "head"}, 1-based) zeroed in the output projection. Prints one JSON object, per layer (0-based lists):
        attentions [layer][head][n][n], x [layer] (the attention norm's output, n x d),
        queries_unrotated / queries [layer] (n x heads*head_dim, with biases and q_norm, before / after RoPE),
        keys_unrotated / keys / values [layer] (n x kv_heads*head_dim), output [layer] (the attention's output,
        n x d, before the residual), logits [position][vocab].
  python3 family_reference.py instruments FOLDER REQUEST_JSON
      the instruments of SPEC section 8 on the folder's model (see instruments() below); prints {"lens",
      "attribution", "clean", "corrupt", "residual", "heads", "generated"}.
"""

import json
import math
import os
import struct
import sys

import numpy as np
import torch

# ---------------------------------------------------------------------------------------------------------------
# The cases: small models of each family with every feature the engine must follow.

BASE = {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96,
        "vocab_size": 60, "max_position_embeddings": 64}

CASES = {
    # Llama with grouped K/V heads, no biases, its own lm_head.
    "llama": dict(arch="LlamaForCausalLM", model_type="llama", dtype="F32", shards=1,
                  config=dict(BASE, num_key_value_heads=2, rms_norm_eps=1e-5, rope_theta=10000.0,
                              attention_bias=False, tie_word_embeddings=False, hidden_act="silu")),
    # Llama 3's frequency scaling (the three regimes all reached at head_dim 16), every bias, a tied head, F16.
    "llama3": dict(arch="LlamaForCausalLM", model_type="llama", dtype="F16", shards=1,
                   config=dict(BASE, num_key_value_heads=2, rms_norm_eps=1e-5, rope_theta=10000.0,
                               attention_bias=True, mlp_bias=True, tie_word_embeddings=True, hidden_act="silu",
                               rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                             "high_freq_factor": 4.0, "original_max_position_embeddings": 64})),
    # Qwen2: q/k/v biases, one K/V head for four, tied, sharded over two files.
    "qwen2": dict(arch="Qwen2ForCausalLM", model_type="qwen2", dtype="F32", shards=2,
                  config=dict(BASE, num_key_value_heads=1, rms_norm_eps=1e-6, rope_theta=1000000.0,
                              tie_word_embeddings=True, use_sliding_window=False, hidden_act="silu")),
    # Qwen3: head_dim 24 (not hidden_size / heads), q_norm and k_norm, BF16.
    "qwen3": dict(arch="Qwen3ForCausalLM", model_type="qwen3", dtype="BF16", shards=1,
                  config=dict(BASE, num_key_value_heads=2, head_dim=24, rms_norm_eps=1e-6, rope_theta=10000.0,
                              attention_bias=False, tie_word_embeddings=False, hidden_act="silu")),
    # GPT-NeoX (Pythia): a quarter of each head turns, parallel residual, exact GELU.
    "neox_parallel": dict(arch="GPTNeoXForCausalLM", model_type="gpt_neox", dtype="F32", shards=1,
                          config=dict(BASE, rotary_pct=0.25, rotary_emb_base=10000, layer_norm_eps=1e-5,
                                      use_parallel_residual=True, hidden_act="gelu", tie_word_embeddings=False)),
    "neox_sequential": dict(arch="GPTNeoXForCausalLM", model_type="gpt_neox", dtype="F32", shards=1,
                            config=dict(BASE, rotary_pct=0.25, rotary_emb_base=10000, layer_norm_eps=1e-5,
                                        use_parallel_residual=False, hidden_act="gelu", tie_word_embeddings=False)),
}


def family(config):
    return config["architectures"][0]


def head_dim(config):
    if family(config) != "GPTNeoXForCausalLM" and "head_dim" in config:
        return config["head_dim"]
    return config["hidden_size"] // config["num_attention_heads"]


def shapes(config):
    """Every tensor of the model, named as transformers names them, with its shape (nn.Linear: out x in)."""
    d, inter, vocab = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    H, hd = config["num_attention_heads"], head_dim(config)
    out = []
    if family(config) == "GPTNeoXForCausalLM":
        bias = config.get("attention_bias", True)
        out.append(("gpt_neox.embed_in.weight", [vocab, d]))
        for l in range(config["num_hidden_layers"]):
            p = f"gpt_neox.layers.{l}."
            for norm in ("input_layernorm", "post_attention_layernorm"):
                out += [(p + norm + ".weight", [d]), (p + norm + ".bias", [d])]
            out.append((p + "attention.query_key_value.weight", [3 * H * hd, d]))
            if bias:
                out.append((p + "attention.query_key_value.bias", [3 * H * hd]))
            out.append((p + "attention.dense.weight", [d, H * hd]))
            if bias:
                out.append((p + "attention.dense.bias", [d]))
            out += [(p + "mlp.dense_h_to_4h.weight", [inter, d]), (p + "mlp.dense_h_to_4h.bias", [inter]),
                    (p + "mlp.dense_4h_to_h.weight", [d, inter]), (p + "mlp.dense_4h_to_h.bias", [d])]
        out += [("gpt_neox.final_layer_norm.weight", [d]), ("gpt_neox.final_layer_norm.bias", [d])]
        out.append(("embed_out.weight", [vocab, d]))
        return out
    KV = config.get("num_key_value_heads", H)
    qwen2 = family(config) == "Qwen2ForCausalLM"
    qkv_bias = qwen2 or config.get("attention_bias", False)
    o_bias = (not qwen2) and config.get("attention_bias", False)
    mlp_bias = config.get("mlp_bias", False)
    out.append(("model.embed_tokens.weight", [vocab, d]))
    for l in range(config["num_hidden_layers"]):
        p = f"model.layers.{l}."
        out.append((p + "input_layernorm.weight", [d]))
        for name, rows in (("q_proj", H * hd), ("k_proj", KV * hd), ("v_proj", KV * hd)):
            out.append((p + f"self_attn.{name}.weight", [rows, d]))
            if qkv_bias:
                out.append((p + f"self_attn.{name}.bias", [rows]))
        out.append((p + "self_attn.o_proj.weight", [d, H * hd]))
        if o_bias:
            out.append((p + "self_attn.o_proj.bias", [d]))
        if family(config) == "Qwen3ForCausalLM":
            out += [(p + "self_attn.q_norm.weight", [hd]), (p + "self_attn.k_norm.weight", [hd])]
        out.append((p + "post_attention_layernorm.weight", [d]))
        for name, shape in (("gate_proj", [inter, d]), ("up_proj", [inter, d]), ("down_proj", [d, inter])):
            out.append((p + f"mlp.{name}.weight", shape))
            if mlp_bias:
                out.append((p + f"mlp.{name}.bias", [shape[0]]))
    out.append(("model.norm.weight", [d]))
    if not config.get("tie_word_embeddings", False):
        out.append(("lm_head.weight", [vocab, d]))
    return out


# ---------------------------------------------------------------------------------------------------------------
# safetensors, written and read with json and numpy only

def encode(values, dtype):
    if dtype == "F32":
        return values.astype("<f4").tobytes()
    if dtype == "F16":
        return values.astype("<f2").tobytes()
    bits = torch.from_numpy(values.astype(np.float32)).to(torch.bfloat16).view(torch.int16).numpy()
    return bits.astype("<i2").tobytes()


def write_safetensors(path, tensors):
    header, body = {}, b""
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(body), len(body) + len(raw)]}
        body += raw
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + body)


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    body = data[8 + length:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        raw, dtype = body[begin:end], info["dtype"]
        if dtype == "F32":
            values = np.frombuffer(raw, dtype="<f4").astype(np.float64)
        elif dtype == "F16":
            values = np.frombuffer(raw, dtype="<f2").astype(np.float64)
        elif dtype == "BF16":
            values = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        else:
            raise SystemExit(f"unsupported dtype {dtype}")
        out[name] = torch.from_numpy(values.reshape(info["shape"]).copy())
    return out


def write_case(case, folder, nan_tensor=None):
    spec = CASES[case]
    config = dict(spec["config"], architectures=[spec["arch"]], model_type=spec["model_type"])
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    rng = np.random.default_rng(sum(map(ord, case)))
    tensors = {}
    for name, shape in shapes(config):
        z = rng.standard_normal(shape)
        if "norm" in name and name.endswith(".weight"):
            values = 1.0 + 0.1 * z
        elif name.endswith(".bias"):
            values = 0.2 * z
        elif "embed_tokens" in name or "embed_in" in name:
            values = z
        else:
            values = 2.0 / math.sqrt(shape[1]) * z
        if name == nan_tensor:
            values.flat[1] = np.nan
        tensors[name] = (spec["dtype"], shape, encode(values, spec["dtype"]))
    shards = spec["shards"]
    if shards == 1:
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
        return
    names = list(tensors)
    weight_map = {}
    for s in range(shards):
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        part = names[s * len(names) // shards:(s + 1) * len(names) // shards]
        write_safetensors(os.path.join(folder, file), {n: tensors[n] for n in part})
        weight_map.update({n: file for n in part})
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": sum(len(t[2]) for t in tensors.values())}, "weight_map": weight_map}, f)


def read_folder(folder):
    single = os.path.join(folder, "model.safetensors")
    if os.path.exists(single):
        return read_safetensors(single)
    with open(os.path.join(folder, "model.safetensors.index.json")) as f:
        files = sorted(set(json.load(f)["weight_map"].values()))
    out = {}
    for file in files:
        out.update(read_safetensors(os.path.join(folder, file)))
    return out


# ---------------------------------------------------------------------------------------------------------------
# The forward pass, from transformers' definitions

def rms_norm(x, w, eps):
    # LlamaRMSNorm: x * rsqrt(mean(x^2) + eps), then the weight
    return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def layer_norm(x, w, b, eps):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, eps)


def linear(x, t, name, bias=True):
    y = x @ t[name + ".weight"].T
    if bias and name + ".bias" in t:
        y = y + t[name + ".bias"]
    return y


def inverse_frequencies(config, dim):
    # _compute_default_rope_parameters, then _compute_llama3_parameters when rope_scaling says llama3
    neox = family(config) == "GPTNeoXForCausalLM"
    base = config.get("rotary_emb_base", 10000) if neox else config.get("rope_theta", 10000.0)
    inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
    scaling = config.get("rope_scaling")
    if scaling and scaling.get("rope_type", scaling.get("type")) == "llama3":
        factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
        old = scaling["original_max_position_embeddings"]
        low_wavelen, high_wavelen = old / low, old / high
        wavelen = 2 * math.pi / inv
        scaled = torch.where(wavelen > low_wavelen, inv / factor, inv)
        smooth = (old / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
        inv = torch.where(medium, smoothed, scaled)
    return inv


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rotary(x, cos, sin, dims):
    # x: heads x n x head_dim; only the first dims turn (NeoX's partial rotary), the rest pass
    turned, rest = x[..., :dims], x[..., dims:]
    return torch.cat((turned * cos + rotate_half(turned) * sin, rest), dim=-1)


def apply_edits(config, t, edits, ablations):
    """Each edit written into the stored tensor it names: nn.Linear keeps W transposed (out x in), so cell (row, col)
    of W_Q is q_proj.weight[col, row]; NeoX's query_key_value holds, per head, that head's q, k and v rows."""
    neox = family(config) == "GPTNeoXForCausalLM"
    hd = head_dim(config)
    for e in edits:
        p = f"{'gpt_neox' if neox else 'model'}.layers.{e['layer'] - 1}."
        w, r, c, v = e["weight"], e["row"], e["col"], float(e["value"])
        part = {"query": 0, "key": 1, "value": 2}
        base = w[:-5] if w.endswith("_bias") else w
        if neox and base in part:
            row = (c // hd) * 3 * hd + part[base] * hd + c % hd
            if w.endswith("_bias"):
                t[p + "attention.query_key_value.bias"][row] = v
            else:
                t[p + "attention.query_key_value.weight"][row, r] = v
            continue
        name = {"query": "self_attn.q_proj", "key": "self_attn.k_proj", "value": "self_attn.v_proj",
                "output": "attention.dense" if neox else "self_attn.o_proj",
                "query_norm": "self_attn.q_norm", "key_norm": "self_attn.k_norm"}[base]
        if w.endswith("_bias"):
            t[p + name + ".bias"][c] = v
        elif w.endswith("_norm"):
            t[p + name + ".weight"][c] = v
        else:
            t[p + name + ".weight"][c, r] = v
    for a in ablations:
        p = f"{'gpt_neox' if neox else 'model'}.layers.{a['layer'] - 1}."
        name = p + ("attention.dense" if neox else "self_attn.o_proj") + ".weight"
        h = a["head"] - 1
        t[name][:, h * hd:(h + 1) * hd] = 0


def load(folder, edits, ablations):
    """config.json and the tensors of a folder, with the edits and ablations written in."""
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    t = read_folder(folder)
    apply_edits(config, t, edits, ablations)
    return config, t


class Model:
    """The forward pass of one folder's model, keeping what the instruments read: the stream entering each layer,
    each layer's z (the heads' outputs before the output projection, n x heads x head_dim) and its MLP's output
    without its last bias. A patch replaces one of them on the way: ("resid", layer, position, row) the stream
    entering layer at position, ("head", layer, head, z) that head's z at every position."""

    def __init__(self, folder, edits=(), ablations=()):
        config, t = load(folder, list(edits), list(ablations))
        self.config, self.t = config, t
        self.neox = family(config) == "GPTNeoXForCausalLM"
        neox = self.neox
        self.L, self.H, self.hd = config["num_hidden_layers"], config["num_attention_heads"], head_dim(config)
        self.KV = self.H if neox else config.get("num_key_value_heads", self.H)
        self.eps = config.get("layer_norm_eps", 1e-5) if neox else config.get("rms_norm_eps", 1e-6)
        fraction = config.get("rotary_pct", 0.25) if neox else config.get("partial_rotary_factor", 1.0)
        self.dims = int(self.hd * fraction)
        self.prefix = "gpt_neox." if neox else "model."
        if neox:
            self.head = t["embed_out.weight"]
        elif config.get("tie_word_embeddings", False):
            self.head = t["model.embed_tokens.weight"]
        else:
            self.head = t["lm_head.weight"]
        self.final = self.prefix + ("final_layer_norm" if neox else "norm")

    def norm(self, x, name):
        if self.neox:
            return layer_norm(x, self.t[name + ".weight"], self.t[name + ".bias"], self.eps)
        return rms_norm(x, self.t[name + ".weight"], self.eps)

    def output_name(self, layer):
        return f"{self.prefix}layers.{layer}." + ("attention.dense" if self.neox else "self_attn.o_proj")

    def mlp_out_name(self, layer):
        return f"{self.prefix}layers.{layer}." + ("mlp.dense_4h_to_h" if self.neox else "mlp.down_proj")

    def logits(self, rows):
        """The final norm and the output head of stream rows."""
        return self.norm(rows, self.final) @ self.head.T

    def forward(self, ids, patch=None):
        config, t, neox = self.config, self.t, self.neox
        L, H, hd, KV, dims = self.L, self.H, self.hd, self.KV, self.dims
        n = len(ids)
        positions = torch.arange(n, dtype=torch.float64)
        freqs = torch.outer(positions, inverse_frequencies(config, dims))
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        causal = torch.tril(torch.ones(n, n, dtype=torch.bool))
        prefix = self.prefix
        x = t[prefix + ("embed_in.weight" if neox else "embed_tokens.weight")][torch.tensor(ids)]
        out = {k: [] for k in ("attentions", "x", "queries_unrotated", "queries", "keys_unrotated", "keys", "values",
                               "output", "streams", "z", "mlp", "mlp_parts")}
        for layer in range(L):
            p = f"{prefix}layers.{layer}."
            if patch and patch[0] == "resid" and patch[1] == layer:
                x = x.clone()
                x[patch[2]] = patch[3]
            out["streams"].append(x)
            a = self.norm(x, p + "input_layernorm")
            if neox:
                # query_key_value's output viewed as (n, heads, 3 * head_dim): q, k, v of each head side by side
                qkv = linear(a, t, p + "attention.query_key_value").view(n, H, 3 * hd).transpose(0, 1)
                q, k, v = qkv[..., :hd], qkv[..., hd:2 * hd], qkv[..., 2 * hd:]
            else:
                q = linear(a, t, p + "self_attn.q_proj").view(n, H, hd).transpose(0, 1)
                k = linear(a, t, p + "self_attn.k_proj").view(n, KV, hd).transpose(0, 1)
                v = linear(a, t, p + "self_attn.v_proj").view(n, KV, hd).transpose(0, 1)
                if family(config) == "Qwen3ForCausalLM":
                    q = rms_norm(q, t[p + "self_attn.q_norm.weight"], self.eps)
                    k = rms_norm(k, t[p + "self_attn.k_norm.weight"], self.eps)
            q_rot, k_rot = apply_rotary(q, cos, sin, dims), apply_rotary(k, cos, sin, dims)
            # repeat_kv: K/V head g serves query heads g * H/KV ... (g + 1) * H/KV - 1
            k_all = k_rot.repeat_interleave(H // KV, dim=0)
            v_all = v.repeat_interleave(H // KV, dim=0)
            scores = (q_rot @ k_all.transpose(1, 2)) / math.sqrt(hd)
            weights = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
            z = (weights @ v_all).transpose(0, 1)  # n, heads, head_dim
            if patch and patch[0] == "head" and patch[1] == layer:
                z = z.clone()
                z[:, patch[2], :] = patch[3]
            out["z"].append(z)
            attn = linear(z.reshape(n, H * hd), t, self.output_name(layer))
            flat = lambda m: m.transpose(0, 1).reshape(n, -1).tolist()
            out["attentions"].append(weights.tolist())
            out["x"].append(a.tolist())
            out["queries_unrotated"].append(flat(q))
            out["queries"].append(flat(q_rot))
            out["keys_unrotated"].append(flat(k))
            out["keys"].append(flat(k_rot))
            out["values"].append(flat(v))
            out["output"].append(attn.tolist())
            down = self.mlp_out_name(layer)
            parts = {}  # the MLP's norm output, pre-activations and neurons, for the Block view's oracle
            if neox:
                def mlp(h):
                    up = linear(h, t, p + "mlp.dense_h_to_4h")
                    act = torch.nn.functional.gelu(up, approximate="none" if config.get("hidden_act", "gelu") == "gelu"
                                                   else "tanh")
                    parts.update(normed=h, up=up, act=act)
                    return linear(act, t, down, bias=False)
            else:
                def mlp(h):
                    gate = linear(h, t, p + "mlp.gate_proj")
                    up = linear(h, t, p + "mlp.up_proj")
                    act = torch.nn.functional.silu(gate) * up
                    parts.update(normed=h, gate=gate, up=up, act=act)
                    return linear(act, t, down, bias=False)
            down_bias = t.get(down + ".bias", 0)
            if neox and config.get("use_parallel_residual", True):
                m = mlp(self.norm(x, p + "post_attention_layernorm"))
                x = x + attn + (m + down_bias)
            else:
                x = x + attn
                m = mlp(self.norm(x, p + "post_attention_layernorm"))
                x = x + (m + down_bias)
            out["mlp"].append(m)
            out["mlp_parts"].append(dict(parts, output=m + down_bias))
        out["streams"].append(x)
        out["logits"] = self.logits(x)
        return out


def run(folder, ids, edits, ablations):
    out = Model(folder, edits, ablations).forward(ids)
    for key in ("streams", "z", "mlp", "mlp_parts"):
        del out[key]
    out["logits"] = out["logits"].tolist()
    json.dump(out, sys.stdout)


def instruments(folder, request):
    """SPEC section 8 from their published definitions, as tests/instruments_reference.py has them for GPT-2:
    - the logit lens (nostalgebraist 2020): the final norm and the output head on the stream after each block;
    - direct logit attribution (TransformerLens' apply_ln_to_stack): each component's output at a position through
      the final norm with its scale frozen at the whole stream's (the mean subtracted for LayerNorm only), times the
      norm's weight, dotted with the target's row of the output head; the norm's bias and every output bias (o_proj
      or dense, the MLP's last projection) go to "bias";
    - activation patching (Heimersheim & Nanda 2024): the corrupted run with one activation of the clean run,
      metric logit(answer) - logit(wrong) at the last position;
    - greedy generation.
    request: {"ids", "target", "position" (0-based), "corrupt_ids", "answer", "wrong", "generate", "edits",
    "ablations"} (edits and ablations in session form)."""
    model = Model(folder, request.get("edits", []), request.get("ablations", []))
    t, L, H, hd = model.t, model.L, model.H, model.hd
    ids = request["ids"]
    clean = model.forward(ids)
    out = {}

    target = request.get("target")
    lens = []
    for s in clean["streams"]:
        probs = torch.softmax(model.logits(s), dim=-1)
        row = []
        for p in range(len(ids)):
            cell = {"id": int(torch.argmax(probs[p])), "probability": float(probs[p].max())}
            if target is not None:
                cell["target_probability"] = float(probs[p, target])
            row.append(cell)
        lens.append(row)
    out["lens"] = lens

    if target is not None:
        position = request.get("position", len(ids) - 1)
        x = clean["streams"][-1][position]
        centred = model.neox
        mean = x.mean() if centred else 0.0
        scale = torch.sqrt(((x - mean) ** 2).mean() + model.eps)
        w = t[model.final + ".weight"]
        direction = w * model.head[target] / scale

        def share(v):
            return float(((v - v.mean()) if centred else v) @ direction)

        bias = float(t[model.final + ".bias"] @ model.head[target]) if centred else 0.0
        heads, mlps = [], []
        for layer in range(L):
            wo = t[model.output_name(layer) + ".weight"]  # d x heads * head_dim
            heads.append([share(clean["z"][layer][position, h] @ wo[:, h * hd:(h + 1) * hd].T) for h in range(H)])
            mlps.append(share(clean["mlp"][layer][position]))
            for name in (model.output_name(layer), model.mlp_out_name(layer)):
                if name + ".bias" in t:
                    bias += share(t[name + ".bias"])
        out["attribution"] = {"logit": float(clean["logits"][position, target]),
                              "embeddings": share(clean["streams"][0][position]), "heads": heads, "mlps": mlps,
                              "bias": bias}

    if "corrupt_ids" in request:
        answer, wrong = request["answer"], request["wrong"]
        corrupt = request["corrupt_ids"]

        def metric(result):
            last = result["logits"][-1]
            return float(last[answer] - last[wrong])

        out["clean"] = metric(clean)
        out["corrupt"] = metric(model.forward(corrupt))
        out["residual"] = [[metric(model.forward(corrupt, ("resid", l, p, clean["streams"][l][p])))
                            for p in range(len(ids))] for l in range(L)]
        out["heads"] = [[metric(model.forward(corrupt, ("head", l, h, clean["z"][l][:, h, :]))) for h in range(H)]
                        for l in range(L)]

    generated = list(ids)
    for _ in range(request.get("generate", 0)):
        generated.append(int(torch.argmax(model.forward(generated)["logits"][-1])))
    out["generated"] = generated
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    with torch.no_grad():
        if sys.argv[1] == "write":
            write_case(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
        elif sys.argv[1] == "write-all":
            for case in CASES:
                write_case(case, os.path.join(sys.argv[2], case))
        elif sys.argv[1] == "instruments":
            instruments(sys.argv[2], json.loads(sys.argv[3]))
        elif sys.argv[1] == "run":
            run(sys.argv[2], [int(i) for i in sys.argv[3].split(",")],
                json.loads(sys.argv[4]) if len(sys.argv) > 4 else [], json.loads(sys.argv[5]) if len(sys.argv) > 5 else [])
        else:
            raise SystemExit(__doc__)
