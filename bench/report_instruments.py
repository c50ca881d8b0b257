"""Prints the instruments' table of scripts/bench: the lens and attribution after an edit, the full patching set
against as many partial passes, and greedy generation against PyTorch float32 with a key/value cache.

report_instruments.py ENGINE_JSONL TORCH_JSONL NOTES
Each file has one JSON object per round (the rounds alternate between the two); a figure is the median of the
rounds' medians, a ratio to torch the median of each round's ratio.
"""

import json
import os
import statistics
import sys


def rounds(path):
    if not path or not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip().startswith("{")]


def main():
    ours, torch, notes = rounds(sys.argv[1]), rounds(sys.argv[2]), sys.argv[3]
    if not ours:
        print("instruments: no results")
        return
    m = lambda key: statistics.median(r[key] for r in ours)
    r0 = ours[0]
    beyond = m("lens_last_ms") + m("attribution_ms")
    patching_s = m("patching_ms") / 1e3
    patching_ratio = statistics.median(r["patching_ms"] / r["partial_passes_ms"] for r in ours)
    rows = [("lens and attribution after a last-layer edit, beyond the pass (%.1f ms)" % m("pass_ms"),
             "%.1f ms" % beyond, "≤ 50 ms", beyond <= 50),
            ("lens after a first-layer edit (every row unembedded again: %d × %d rows of the output head)"
             % (r0["layers"] + 1, r0["tokens"]), "%.1f ms" % m("lens_first_ms"), "", None),
            ("full patching set (%d runs: residual %d × %d, heads %d × %d)"
             % (r0["patching_runs"], r0["layers"], r0["tokens"], r0["layers"], r0["heads"]),
             "%.2f s" % patching_s, "≤ 10 s", patching_s <= 10),
            ("patching / as many partial passes (%.2f s)" % (m("partial_passes_ms") / 1e3), "%.2f" % patching_ratio,
             "≤ 2", patching_ratio <= 2)]
    if torch:
        ratio = statistics.median(o["generate_ms"] / t["generate_ms"] for o, t in zip(ours, torch))
        same = all(o["generated_ids"] == t["generated_ids"] for o, t in zip(ours, torch))
        rows.append(("generate %d tokens greedily / torch with a key/value cache (%.0f / %.0f ms)%s"
                     % (r0["generated"], m("generate_ms"), statistics.median(t["generate_ms"] for t in torch),
                        "" if same else "; the tokens DIFFER from torch's"),
                     "%.2f" % ratio, "≤ 1.5", ratio <= 1.5))
    else:
        rows.append(("generate %d tokens greedily" % r0["generated"], "%.0f ms" % m("generate_ms"), "≤ 1.5 × torch",
                     None))
    print()
    print("| instruments, %s, n=%d | ours | target | |" % (r0["architecture"], r0["tokens"]))
    print("| --- | --- | --- | --- |")
    for name, figure, target, ok in rows:
        print("| %s | %s | %s | %s |" % (name, figure, target, "" if ok is None else ("met" if ok else "NOT met")))
    print(notes)


if __name__ == "__main__":
    main()
