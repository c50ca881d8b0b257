#!/usr/bin/python3
"""Trains the built-in model from the corpus make_corpus.py writes: a byte-level BPE vocabulary, then a small
LlamaForCausalLM (RMSNorm, rotary positions, grouped K/V heads, SwiGLU, tied head) in float32 on one thread, with
fixed seeds. Writes config.json, model.safetensors, tokenizer.json, tokenizer_config.json and loss.png into OUT.

usage: nice -n 19 train.py CORPUS_TXT HELDOUT_JSON OUT [FIRST_STAGE]
  FIRST_STAGE  continues a run cut after a stage: the earlier stages' model and losses are read from OUT
"""

import collections
import heapq
import json
import math
import os
import random
import struct
import sys
import time
import unicodedata
import zlib

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests"))
from family_reference import read_safetensors, write_safetensors  # noqa: E402

SEED = 37
VOCAB = 1024
BOS = "<|bos|>"
CONFIG = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
          "intermediate_size": 176, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
          "head_dim": 16, "max_position_embeddings": 256, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
          "attention_bias": False, "mlp_bias": False, "hidden_act": "silu", "tie_word_embeddings": True,
          "vocab_size": VOCAB, "bos_token_id": 0, "torch_dtype": "float32"}
ROW = 80          # tokens per training row
BATCH = 12
# The stages: steps, rows of each batch (of BATCH) that are random word sequences said again, their lengths and
# how many times each is said. The first learns the corpus; the later ones mostly copying, which the first did not.
STAGES = [dict(steps=2000, copy_rows=6, lengths=(5, 30), repeats=2),
          dict(steps=1200, copy_rows=10, lengths=(4, 15), repeats=4),
          dict(steps=1500, copy_rows=10, lengths=(5, 30), repeats=3)]
LR, WARMUP = 3e-3, 100

# ---------------------------------------------------------------------------------------------------------------
# The tokenizer: GPT-2's pre-tokenizer pattern and byte alphabet, BPE merges learnt from the corpus


def byte_alphabet():
    """GPT-2's printable stand-in for each byte (bytes_to_unicode)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    chars, extra = {}, 0
    for b in range(256):
        if b in keep:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return chars


BYTE = byte_alphabet()


def char_class(c):
    if c.isspace():
        return "s"
    category = unicodedata.category(c)
    return "L" if category[0] == "L" else "N" if category[0] == "N" else "o"


def pretokenize(text):
    """GPT-2's pattern 's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+ by hand."""
    out, i, n = [], 0, len(text)
    while i < n:
        for c in ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d"):
            if text.startswith(c, i):
                out.append(c)
                i += len(c)
                break
        else:
            start = i
            if text[i] == " " and i + 1 < n and char_class(text[i + 1]) != "s":
                i += 1
            kind = char_class(text[i])
            if kind != "s":
                while i < n and char_class(text[i]) == kind:
                    i += 1
                out.append(text[start:i])
                continue
            while i < n and text[i].isspace():
                i += 1
            if i < n and i - start > 1:  # the last space goes with the word after it
                i -= 1
            out.append(text[start:i])
    return out


def as_symbols(piece):
    return tuple(BYTE[b] for b in piece.encode("utf-8"))


def train_bpe(texts, size):
    words = collections.Counter()
    for text in texts:
        words.update(as_symbols(p) for p in pretokenize(text))
    words = [[list(w), c] for w, c in words.items()]
    pairs, where = collections.Counter(), collections.defaultdict(set)
    for k, (w, c) in enumerate(words):
        for a, b in zip(w, w[1:]):
            pairs[a, b] += c
            where[a, b].add(k)
    vocab = [BOS] + [BYTE[b] for b in range(256)]
    merges = []
    heap = [(-c, p) for p, c in pairs.items()]
    heapq.heapify(heap)
    while len(vocab) < size and heap:
        count, best = heapq.heappop(heap)
        if -count != pairs.get(best, 0):  # a count that has changed since: its newer entry is in the heap
            continue
        if -count < 2:
            break
        merges.append(best)
        joined = best[0] + best[1]
        vocab.append(joined)
        touched = set()
        for k in list(where[best]):
            w, c = words[k]
            for a, b in zip(w, w[1:]):
                pairs[a, b] -= c
            merged, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    merged.append(joined)
                    i += 2
                else:
                    merged.append(w[i])
                    i += 1
            words[k][0] = merged
            for a, b in zip(merged, merged[1:]):
                pairs[a, b] += c
                where[a, b].add(k)
                touched.add((a, b))
            touched.update(zip(w, w[1:]))
        del pairs[best]
        for p in touched:
            if p != best and pairs.get(p, 0) > 0:
                heapq.heappush(heap, (-pairs[p], p))
    return vocab, merges


class Encoder:
    def __init__(self, vocab, merges):
        self.ids = {t: i for i, t in enumerate(vocab)}
        self.rank = {m: r for r, m in enumerate(merges)}
        self.cache = {}

    def word(self, piece):
        if piece in self.cache:
            return self.cache[piece]
        w = list(as_symbols(piece))
        while len(w) > 1:
            ranked = [(self.rank.get((a, b), 1 << 30), i) for i, (a, b) in enumerate(zip(w, w[1:]))]
            r, i = min(ranked)
            if r == 1 << 30:
                break
            w[i:i + 2] = [w[i] + w[i + 1]]
        ids = [self.ids[s] for s in w]
        self.cache[piece] = ids
        return ids

    def __call__(self, text, bos=True):
        ids = [0] if bos else []
        for p in pretokenize(text):
            ids += self.word(p)
        return ids


def tokenizer_json(vocab, merges):
    special = {"id": BOS, "ids": [0], "tokens": [BOS]}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": 0, "content": BOS, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": BOS, "type_id": 0}},
                                      {"Sequence": {"id": "A", "type_id": 0}}],
                           "pair": [{"SpecialToken": {"id": BOS, "type_id": 0}},
                                    {"Sequence": {"id": "A", "type_id": 0}},
                                    {"Sequence": {"id": "B", "type_id": 1}}],
                           "special_tokens": {BOS: special}},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": {t: i for i, t in enumerate(vocab)}, "merges": [a + " " + b for a, b in merges]},
    }


# ---------------------------------------------------------------------------------------------------------------
# The model: transformers' LlamaForCausalLM, float32


def rms_norm(x, w):
    return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + CONFIG["rms_norm_eps"]))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Llama(torch.nn.Module):
    def __init__(self):
        super().__init__()
        c = CONFIG
        d, hd, H, KV, inter = c["hidden_size"], c["head_dim"], c["num_attention_heads"], c["num_key_value_heads"], \
            c["intermediate_size"]
        P = torch.nn.Parameter
        std, deep = 0.02, 0.02 / math.sqrt(2 * c["num_hidden_layers"])
        self.embed = P(torch.randn(c["vocab_size"], d) * std)
        self.layers = torch.nn.ModuleList()
        for _ in range(c["num_hidden_layers"]):
            layer = torch.nn.ParameterDict({
                "input_layernorm": P(torch.ones(d)), "q_proj": P(torch.randn(H * hd, d) * std),
                "k_proj": P(torch.randn(KV * hd, d) * std), "v_proj": P(torch.randn(KV * hd, d) * std),
                "o_proj": P(torch.randn(d, H * hd) * deep), "post_attention_layernorm": P(torch.ones(d)),
                "gate_proj": P(torch.randn(inter, d) * std), "up_proj": P(torch.randn(inter, d) * std),
                "down_proj": P(torch.randn(d, inter) * deep)})
            self.layers.append(layer)
        self.norm = P(torch.ones(d))
        inv = 1.0 / (c["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
        angles = torch.outer(torch.arange(c["max_position_embeddings"], dtype=torch.float32), inv)
        emb = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", emb.cos(), persistent=False)
        self.register_buffer("sin", emb.sin(), persistent=False)

    def forward(self, ids, keep_attention=False):
        c = CONFIG
        B, n = ids.shape
        H, KV, hd = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
        cos, sin = self.cos[:n], self.sin[:n]
        mask = torch.full((n, n), float("-inf")).triu(1)
        x = self.embed[ids]
        attentions = []
        for layer in self.layers:
            h = rms_norm(x, layer["input_layernorm"])
            q = (h @ layer["q_proj"].T).view(B, n, H, hd).transpose(1, 2)
            k = (h @ layer["k_proj"].T).view(B, n, KV, hd).transpose(1, 2)
            v = (h @ layer["v_proj"].T).view(B, n, KV, hd).transpose(1, 2)
            q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
            k, v = k.repeat_interleave(H // KV, dim=1), v.repeat_interleave(H // KV, dim=1)
            a = torch.softmax(q @ k.transpose(-1, -2) * hd ** -0.5 + mask, dim=-1)
            if keep_attention:
                attentions.append(a)
            o = (a @ v).transpose(1, 2).reshape(B, n, H * hd)
            x = x + o @ layer["o_proj"].T
            h = rms_norm(x, layer["post_attention_layernorm"])
            x = x + (F.silu(h @ layer["gate_proj"].T) * (h @ layer["up_proj"].T)) @ layer["down_proj"].T
        logits = rms_norm(x, self.norm) @ self.embed.T
        return (logits, attentions) if keep_attention else logits

    def named(self):
        """The parameters by the names transformers gives them."""
        out = {"model.embed_tokens.weight": self.embed, "model.norm.weight": self.norm}
        for l, layer in enumerate(self.layers):
            for name, value in layer.items():
                where = "self_attn." if name.endswith("_proj") and name[0] in "qkvo" else \
                    "mlp." if name.endswith("_proj") else ""
                out[f"model.layers.{l}.{where}{name}.weight"] = value
        return out

    def tensors(self):
        return {k: v.detach().numpy().astype(np.float32) for k, v in self.named().items()}


# ---------------------------------------------------------------------------------------------------------------
# Data: corpus rows from document starts, and random token sequences said twice


def word_tokens(vocab):
    """The ids of whole words after a space ("Ġstore"): what the copied random sequences are made of."""
    return [i for i, t in enumerate(vocab) if t.startswith("Ġ") and t[1:].isascii() and t[1:].isalpha()]


def copy_row(rng, n, words, stage):
    """BOS, a random sequence of words, the same again (in the second stage, shorter and said two to four times),
    repeated until the row is full."""
    row = []
    while len(row) < n:
        length = rng.randint(*stage["lengths"])
        seq = [rng.choice(words) for _ in range(length)]
        row += [0] + seq * (2 if stage["repeats"] == 2 else rng.randint(2, stage["repeats"]))
    return row[:n]


def batches(stream, starts, words, stage, seed):
    rng = random.Random(seed)
    while True:
        rows = [copy_row(rng, ROW + 1, words, stage) for _ in range(stage["copy_rows"])]
        for _ in range(BATCH - stage["copy_rows"]):
            s = rng.choice(starts)
            rows.append(stream[s:s + ROW + 1])
        t = torch.tensor(rows)
        yield t[:, :-1], t[:, 1:]


def evaluate(model, encode, heldout, words, seed=1):
    """The name stories' accuracy and the copying accuracy on random sequences said twice (as the tests measure)."""
    model.eval()
    with torch.no_grad():
        right = 0
        for story in heldout:
            ids = encode(story["text"])
            logits = model(torch.tensor([ids]))[0, -1]
            a, b = encode(" " + story["right"], False)[0], encode(" " + story["wrong"], False)[0]
            right += bool(logits[a] > logits[b])
        rng = random.Random(seed)
        hits = total = 0
        for _ in range(50):
            seq = [rng.choice(words) for _ in range(25)]
            ids = [0] + seq + seq
            pred = model(torch.tensor([ids]))[0].argmax(-1)
            for p in range(26, len(ids) - 1):
                hits += int(pred[p] == ids[p + 1])
                total += 1
    model.train()
    return right / len(heldout), hits / total


# ---------------------------------------------------------------------------------------------------------------
# The loss curve as a PNG, written with zlib alone


def write_png(path, pixels):
    h, w = len(pixels), len(pixels[0])
    raw = b"".join(b"\x00" + bytes(v for px in row for v in px) for row in pixels)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def loss_curve(path, losses, top):
    """Steps across, loss up from 0 to top; a grey line at each whole loss, the curve smoothed over 20 steps."""
    W, H, M = 640, 360, 20
    px = [[(255, 255, 255)] * W for _ in range(H)]
    for k in range(int(top) + 1):
        y = H - M - int((H - 2 * M) * k / top)
        for x in range(M, W - M):
            px[y][x] = (210, 210, 210)
    for y in range(M, H - M + 1):
        px[y][M] = (0, 0, 0)
    for x in range(M, W - M):
        px[H - M][x] = (0, 0, 0)
    smooth = [sum(losses[max(0, i - 19):i + 1]) / len(losses[max(0, i - 19):i + 1]) for i in range(len(losses))]
    last = None
    for x in range(M, W - M):
        i = min(len(smooth) - 1, (x - M) * len(smooth) // (W - 2 * M))
        y = H - M - int((H - 2 * M) * min(smooth[i], top) / top)
        lo, hi = (y, y) if last is None else (min(y, last), max(y, last))
        for yy in range(lo, hi + 1):
            for dx in (0, 1):
                px[yy][x + dx] = (200, 60, 30)
        last = y
    write_png(path, px)


def save(model, losses, out):
    tensors = {k: ("F32", list(v.shape), v.astype("<f4").tobytes()) for k, v in model.tensors().items()}
    write_safetensors(os.path.join(out, "model.safetensors"), tensors)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(CONFIG, f, indent=1)
    loss_curve(os.path.join(out, "loss.png"), losses, math.ceil(max(losses[:5])))
    with open(os.path.join(out, "losses.json"), "w") as f:
        json.dump(losses, f)


def load(model, out):
    t = read_safetensors(os.path.join(out, "model.safetensors"))
    with torch.no_grad():
        for name, p in model.named().items():
            p.copy_(torch.from_numpy(np.array(t[name], dtype=np.float32)))


def main():
    corpus_path, heldout_path, out = sys.argv[1:4]
    first_stage = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    os.makedirs(out, exist_ok=True)
    docs = [d.strip() for d in open(corpus_path, encoding="utf-8").read().split("<|doc|>") if d.strip()]
    heldout = json.load(open(heldout_path, encoding="utf-8"))

    began = time.time()
    vocab, merges = train_bpe(docs[:20000], VOCAB)
    assert len(vocab) == VOCAB, len(vocab)
    encode = Encoder(vocab, merges)
    with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer_json(vocab, merges), f, ensure_ascii=False)
    with open(os.path.join(out, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump({"bos_token": BOS, "add_bos_token": True, "model_max_length": CONFIG["max_position_embeddings"],
                   "tokenizer_class": "PreTrainedTokenizerFast"}, f, indent=1)
    stream, starts = [], []
    for d in docs:
        starts.append(len(stream))
        stream += encode(d)
    starts = [s for s in starts if s + ROW + 1 <= len(stream)]
    print(f"tokenizer: {len(merges)} merges, {len(stream)} tokens, {time.time() - began:.0f} s", flush=True)

    model = Llama()
    losses = []
    words = word_tokens(vocab)
    print(f"{len(words)} word tokens for the copied sequences", flush=True)
    for k, stage in enumerate(STAGES):
        if k + 1 < first_stage:  # continuing a cut run: the earlier stages' model is in OUT
            load(model, out)
            path = os.path.join(out, "losses.json")
            losses = json.load(open(path)) if os.path.exists(path) else []
            continue
        train_stage(model, stage, stream, starts, words, SEED + k, losses, encode, heldout, out, began)


def train_stage(model, stage, stream, starts, words, seed, losses, encode, heldout, out, began):
    """One stage: a fresh AdamW, warm-up then a cosine decay to a tenth."""
    decay = [p for n, p in model.named_parameters() if p.dim() == 2]
    rest = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": rest, "weight_decay": 0.0}],
                            lr=LR, betas=(0.9, 0.95))
    data = batches(stream, starts, words, stage, seed)
    steps = stage["steps"]
    for step in range(steps):
        lr = LR * min(1.0, (step + 1) / WARMUP) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * step / steps)))
        for g in opt.param_groups:
            g["lr"] = lr
        x, y = next(data)
        loss = F.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
        if (step + 1) % 250 == 0 or step + 1 == steps:
            names, copying = evaluate(model, encode, heldout, words)
            print(f"step {step + 1} loss {loss.item():.3f} names {names:.2f} copying {copying:.2f} "
                  f"{time.time() - began:.0f} s", flush=True)
            save(model, losses, out)  # the model so far, should the run be cut short
    print(f"stage done: loss (mean of the last 50 steps) {sum(losses[-50:]) / 50:.3f}", flush=True)
    print(f"final loss (mean of the last 50 steps) {sum(losses[-50:]) / 50:.3f}", flush=True)


if __name__ == "__main__":
    main()
