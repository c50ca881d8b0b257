"""Prints the one table of scripts/bench from the results its steps wrote.

report.py ENGINE_JSON PEAKS_JSONL TORCH_JSONL REPAINT_JSONL NOTES
A results file that is missing or empty leaves its columns blank and the notes say why.
"""

import json
import os
import sys


def read_lines(path):
    if not path or not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip().startswith("{")]


def engine_medians(path):
    """{(name, n, heads, threads): median ms} from Google Benchmark's JSON."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    medians, flops = {}, {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        parts = b["run_name"].split("/")
        name, args = parts[0], [int(p) for p in parts[1:] if p.isdigit()]
        key = (name, args[0], args[1], args[2] if len(args) > 2 else 1)
        medians[key] = b["real_time"]
        flops[key] = b.get("flops")
    return medians, flops


def fmt(value, spec):
    return format(value, spec) if value is not None else "-"


def main():
    engine_path, peaks_path, torch_path, repaint_path, notes = sys.argv[1:6]
    medians, flops = engine_medians(engine_path)
    peaks = {(p["n"], p["heads"]): p for p in read_lines(peaks_path)}
    torch = {(t["n"], t["heads"]): t["ms"] for t in read_lines(torch_path)}
    repaint = {r["n"]: r for r in read_lines(repaint_path)}

    shapes = sorted({(k[1], k[2]) for k in medians if k[0] == "Forward"}, key=lambda s: (s[1], s[0]))
    header = ("shape", "ms", "GFLOP/s", "GEMM eff", "fwd/GEMMs", "peak MiB", "torch ms", "ours/torch",
              "1-cell ms", "edit p50 ms", "edit p95 ms", "GUI stall ms")
    rows = []
    worst_torch = worst_eff = None
    for n, h in shapes:
        ms = medians[("Forward", n, h, 1)]
        gflops = flops[("Forward", n, h, 1)] / ms / 1e6
        plain = [medians[k] / flops[k] for k in medians if k[0] == "PlainGemm" and k[1:3] == (n, h)]
        eff = min(plain) / (ms / flops[("Forward", n, h, 1)]) if plain else None
        own = [medians[k] for k in medians if k[0] == "OwnGemms" and k[1:3] == (n, h)]
        over = ms / min(own) if own else None
        peak = peaks.get((n, h))
        peak_mib = peak["peak_kib"] / 1024 if peak else None
        t = torch.get((n, h))
        ratio = ms / t if t else None
        r = repaint.get(n) if h == 1 else None
        edit = medians.get(("EditOneCell", n, h, 1))
        shape = f"n={n} h={h}"
        rows.append((shape, fmt(ms, ".3g"), fmt(gflops, ".2f"), fmt(eff, ".2f"), fmt(over, ".2f"),
                     fmt(peak_mib, ".0f"), fmt(t, ".3g"), fmt(ratio, ".3f"), fmt(edit, ".3g"),
                     fmt(r["p50_ms"] if r else None, ".1f"), fmt(r["p95_ms"] if r else None, ".1f"),
                     fmt(r.get("stall_max_ms") if r else None, ".1f")))
        if ratio is not None and (worst_torch is None or ratio > worst_torch[0]):
            worst_torch = (ratio, shape)
        if eff is not None and (worst_eff is None or eff < worst_eff[0]):
            worst_eff = (eff, shape)

    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    line = lambda r: "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
    print(line(header))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))
    firsts = ", ".join("n={} {:.1f} ms".format(n, r["first_edit_ms"]) for n, r in sorted(repaint.items())
                       if r.get("first_edit_ms") is not None)
    if firsts:
        notes += "\nfirst edit after loading (a warm-up, not in the edit columns): " + firsts
    for note in notes.split("\n"):
        if note.strip():
            print(note)

    p4096 = peaks.get((4096, 1))
    r512, r4096 = repaint.get(512), repaint.get(4096)
    print("summary: worst ratio to torch {} at {}; worst GEMM efficiency {} at {}; peak memory at n=4096 {} MiB; "
          "p95 edit-to-repaint at n=512 {} ms, at n=4096 {} ms".format(
              fmt(worst_torch[0] if worst_torch else None, ".2f"), worst_torch[1] if worst_torch else "-",
              fmt(worst_eff[0] if worst_eff else None, ".2f"), worst_eff[1] if worst_eff else "-",
              fmt(p4096["peak_kib"] / 1024 if p4096 else None, ".0f"),
              fmt(r512["p95_ms"] if r512 else None, ".1f"), fmt(r4096["p95_ms"] if r4096 else None, ".1f")))


if __name__ == "__main__":
    main()
