"""Prints the GPT-2 table of scripts/bench: the engine's forward pass and edits against PyTorch float32.

report_gpt2.py ENGINE_JSONL TORCH_JSONL NOTES [SUMMARY_JSON]
Each file has one JSON object per round (the rounds alternate between the two); the table gives the median
of the rounds' medians, and for the ratio to torch the median of each round's ratio. A missing torch file
leaves its column blank and the notes say why. The figures of scripts/bench's summary line go to SUMMARY_JSON
when given.
"""

import json
import os
import statistics
import sys

TARGETS = {"forward_ratio": 0.8, "edit_last_ms": 30.0, "edit_first_ms": 150.0, "load_ms": 3000.0, "rss_mib": 1024.0}


def rounds(path):
    if not path or not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip().startswith("{")]


def median_of(rows, key):
    values = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(values) if values else None


def main():
    ours, torch, notes = rounds(sys.argv[1]), rounds(sys.argv[2]), sys.argv[3]
    if not ours:
        print("GPT-2: the engine's benchmark wrote nothing")
        return
    first = ours[0]
    forward, torch_ms = median_of(ours, "forward_ms"), median_of(torch, "forward_ms")
    # Each round's ratio, ours and torch run one right after the other: the host's speed drifts between rounds.
    pairs = [o["forward_ms"] / t["forward_ms"] for o, t in zip(ours, torch) if o.get("forward_ms") and t.get("forward_ms")]
    ratio = statistics.median(pairs) if pairs else None
    rss = max(r["rss_kib"] for r in ours) / 1024
    measured = {"forward_ratio": ratio, "edit_last_ms": median_of(ours, "edit_last_ms"),
                "edit_first_ms": median_of(ours, "edit_first_ms"), "load_ms": median_of(ours, "load_ms"),
                "rss_mib": rss}
    shape = "{} layers, {} wide, {} heads, {} tokens of vocabulary, {} tokens of text".format(
        first["layers"], first["width"], first["heads"], first["vocab"], first["tokens"])
    print(f"GPT-2 ({shape}; random weights; products on Eigen built for {first.get('products', '?')})")
    rows = [("forward pass", f"{forward:.1f} ms", "-"),
            ("PyTorch float32 forward", f"{torch_ms:.1f} ms" if torch_ms else "-", "-"),
            ("forward / torch", f"{ratio:.2f}" if ratio else "-", "<= 0.8"),
            ("edit W_Q(1,1), last layer, to new logits", f"{measured['edit_last_ms']:.1f} ms", "<= 30 ms"),
            ("edit W_Q(1,1), first layer, to new logits", f"{measured['edit_first_ms']:.1f} ms", "<= 150 ms"),
            ("load", f"{measured['load_ms']:.0f} ms", "<= 3000 ms"),
            ("resident memory after all of it", f"{rss:.0f} MiB", "<= 1024 MiB")]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for r in rows:
        print(f"  {r[0].ljust(widths[0])}  {r[1].rjust(widths[1])}  {r[2]}")
    for note in notes.split("\n"):
        if note.strip():
            print(note)
    if len(sys.argv) > 4:
        with open(sys.argv[4], "w", encoding="utf-8") as f:
            json.dump({"gpt2_ratio": ratio, "edit_last_ms": measured["edit_last_ms"],
                       "edit_first_ms": measured["edit_first_ms"]}, f)
    missed = [k for k, target in TARGETS.items() if measured[k] is not None and measured[k] > target]
    print("gpt2 summary: forward/torch {}; edit last {:.1f} ms, first {:.1f} ms; load {:.0f} ms; {:.0f} MiB; {}".format(
        f"{ratio:.2f}" if ratio else "-", measured["edit_last_ms"], measured["edit_first_ms"], measured["load_ms"], rss,
        "targets met" if not missed else "over target: " + ", ".join(missed)))


if __name__ == "__main__":
    main()
