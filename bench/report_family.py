"""Prints the Llama-family table of scripts/bench: the engine against PyTorch float32 on two shapes.

report_family.py ENGINE_JSONL TORCH_JSONL NOTES
Each file has one JSON object per round and shape (the rounds alternate between the two programs); a figure is the
median of the rounds' medians, the ratio to torch the median of each round's ratio.
"""

import json
import statistics
import sys

# shape: (edit of the last layer ms, of the first layer ms, open ms)
TARGETS = {"smollm2-135m": (30.0, 300.0, 2000.0), "llama-3.2-1b": (100.0, 1500.0, 5000.0)}
RATIO_TARGET = 0.8


def rows_of(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip().startswith("{")]


def main():
    ours, torch, notes = rows_of(sys.argv[1]), rows_of(sys.argv[2]), sys.argv[3]
    print()
    print("| Llama-family shape, 64 tokens, BF16 | forward ms | torch ms | ours / torch | last-layer edit ms | "
          "first-layer edit ms | open ms | peak MiB (limit) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    summary = []
    for shape, (last_target, first_target, open_target) in TARGETS.items():
        mine = [r for r in ours if r["shape"] == shape]
        theirs = [r for r in torch if r["shape"] == shape]
        if not mine:
            continue
        med = lambda key: statistics.median(r[key] for r in mine)  # noqa: E731
        ratios = [o["forward_ms"] / t["forward_ms"] for o, t in zip(mine, theirs)]
        ratio = statistics.median(ratios) if ratios else None
        peak = max(r["peak_kib"] for r in mine) / 1024
        limit = 1.3 * mine[0]["bytes"] / 2**20 + 300
        checks = {"forward / torch": ratio is not None and ratio <= RATIO_TARGET,
                  "last-layer edit": med("edit_last_ms") <= last_target,
                  "first-layer edit": med("edit_first_ms") <= first_target,
                  "open": med("load_ms") <= open_target, "peak memory": peak <= limit}
        missed = [k for k, ok in checks.items() if not ok]
        print("| %s: %d layers, %d wide, %d heads of %d K/V | %.1f | %s | %s | %.1f (≤ %.0f) | %.1f (≤ %.0f) | %.0f (≤ %.0f) | %.0f (%.0f) |" % (
            shape, mine[0]["layers"], mine[0]["width"], mine[0]["heads"], mine[0]["kv_heads"], med("forward_ms"),
            "%.1f" % statistics.median(t["forward_ms"] for t in theirs) if theirs else "-",
            "%.2f (≤ %.1f)" % (ratio, RATIO_TARGET) if ratio else "-", med("edit_last_ms"), last_target,
            med("edit_first_ms"), first_target, med("load_ms"), open_target, peak, limit))
        summary.append("%s %s%s" % (shape, "ours/torch %.2f, " % ratio if ratio else "",
                                     "targets met" if not missed else "over target: " + ", ".join(missed)))
    for note in notes.split("\n"):
        if note.strip():
            print(note)
    print("family summary: " + "; ".join(summary))


if __name__ == "__main__":
    main()
