"""Writes a GPT-2-shaped checkpoint folder with random weights, as Hugging Face lays one out.

    make_gpt2_checkpoint.py OUT_DIR TOKENIZER_DIR [--layers 12] [--width 768] [--heads 12] [--positions 1024]

OUT_DIR gets config.json, model.safetensors (F32, names without the "transformer." prefix) and the
tokenizer as vocab.json + merges.txt, copied from TOKENIZER_DIR's encoder.json and vocab.bpe (GPT-2's
own files, so the vocabulary has GPT-2's 50 257 tokens). The weights follow GPT-2's initialisation
(normal, standard deviation 0.02; the residual projections scaled by 1/sqrt(2 L)), so activations and
attention look like a trained model's in size, if not in meaning. The same arguments give the same
bytes. A folder already written with the same arguments is left as it is.
"""

import argparse
import json
import os
import shutil

import numpy as np


def tensors(layers, width, positions, vocab, rng):
    """(name, float32 array) in the order GPT-2's checkpoints list them."""
    def normal(*shape, std=0.02):
        return (rng.standard_normal(shape, dtype=np.float32) * np.float32(std)).astype(np.float32)

    def near_one(k):
        return (1.0 + normal(k, std=0.05)).astype(np.float32)

    residual = 0.02 / np.sqrt(2 * layers)
    yield "wte.weight", normal(vocab, width)
    yield "wpe.weight", normal(positions, width, std=0.01)
    for i in range(layers):
        p = f"h.{i}."
        yield p + "ln_1.weight", near_one(width)
        yield p + "ln_1.bias", normal(width)
        yield p + "attn.c_attn.weight", normal(width, 3 * width)
        yield p + "attn.c_attn.bias", normal(3 * width)
        yield p + "attn.c_proj.weight", normal(width, width, std=residual)
        yield p + "attn.c_proj.bias", normal(width)
        yield p + "ln_2.weight", near_one(width)
        yield p + "ln_2.bias", normal(width)
        yield p + "mlp.c_fc.weight", normal(width, 4 * width)
        yield p + "mlp.c_fc.bias", normal(4 * width)
        yield p + "mlp.c_proj.weight", normal(4 * width, width, std=residual)
        yield p + "mlp.c_proj.bias", normal(width)
    yield "ln_f.weight", near_one(width)
    yield "ln_f.bias", normal(width)


def shapes(layers, width, positions, vocab):
    """The shapes of tensors(), without making them, for the header."""
    yield "wte.weight", (vocab, width)
    yield "wpe.weight", (positions, width)
    for i in range(layers):
        p = f"h.{i}."
        for name, shape in (("ln_1.weight", (width,)), ("ln_1.bias", (width,)),
                            ("attn.c_attn.weight", (width, 3 * width)), ("attn.c_attn.bias", (3 * width,)),
                            ("attn.c_proj.weight", (width, width)), ("attn.c_proj.bias", (width,)),
                            ("ln_2.weight", (width,)), ("ln_2.bias", (width,)),
                            ("mlp.c_fc.weight", (width, 4 * width)), ("mlp.c_fc.bias", (4 * width,)),
                            ("mlp.c_proj.weight", (4 * width, width)), ("mlp.c_proj.bias", (width,))):
            yield p + name, shape
    yield "ln_f.weight", (width,)
    yield "ln_f.bias", (width,)


def write_safetensors(path, args, vocab):
    header, offset = {}, 0
    for name, shape in shapes(args.layers, args.width, args.positions, vocab):
        size = 4 * int(np.prod(shape))
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned
    rng = np.random.default_rng(args.seed)
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for _, values in tensors(args.layers, args.width, args.positions, vocab, rng):
            f.write(np.ascontiguousarray(values, dtype="<f4").tobytes())
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("tokenizer")
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--width", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--positions", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=2019)
    args = ap.parse_args()

    with open(os.path.join(args.tokenizer, "encoder.json"), encoding="utf-8") as f:
        vocab = len(json.load(f))
    config = {"model_type": "gpt2", "n_layer": args.layers, "n_embd": args.width, "n_head": args.heads,
              "n_positions": args.positions, "n_ctx": args.positions, "vocab_size": vocab,
              "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new",
              "random_weights_seed": args.seed}
    os.makedirs(args.out, exist_ok=True)
    config_path = os.path.join(args.out, "config.json")
    weights_path = os.path.join(args.out, "model.safetensors")
    try:
        with open(config_path, encoding="utf-8") as f:
            if json.load(f) == config and os.path.exists(weights_path):
                return
    except (OSError, ValueError):
        pass
    shutil.copyfile(os.path.join(args.tokenizer, "encoder.json"), os.path.join(args.out, "vocab.json"))
    shutil.copyfile(os.path.join(args.tokenizer, "vocab.bpe"), os.path.join(args.out, "merges.txt"))
    write_safetensors(weights_path, args, vocab)
    with open(config_path, "w", encoding="utf-8") as f:  # last: a folder with a config is complete
        json.dump(config, f, indent=2)


if __name__ == "__main__":
    main()
