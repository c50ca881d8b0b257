"""Prints the one table of scripts/bench from the results its steps wrote.

report.py ENGINE_JSON PEAKS_JSONL TORCH_JSONL REPAINT_JSONL NOTES PEAK_JSONL TORCH_BLAS_JSON REPAINT_LOADED_JSONL SUMMARY_JSON
A results file that is missing or empty leaves its columns blank and the notes say why. PEAK_JSONL holds the
practical peak's runs (bench_peak), TORCH_BLAS_JSON which BLAS torch ran on (torch_blas.py); the figures of
the summary line go to SUMMARY_JSON (report_summary.py prints it).
"""

import glob
import json
import os
import re
import statistics
import sys


def read_lines(path):
    if not path or not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip().startswith("{")]


medians_context = {}


def engine_medians(path):
    """{(name, n, heads, threads): median ms} from Google Benchmark's JSON."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    medians, flops = {}, {}
    medians_context["products"] = data.get("context", {}).get("products", "?")
    for b in data["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        parts = b["run_name"].split("/")
        name, args = parts[0], [int(p) for p in parts[1:] if p.isdigit()]
        key = (name, args[0], args[1], args[2] if len(args) > 2 else 1)
        medians[key] = b["real_time"]
        flops[key] = b.get("flops")
    return medians, flops


def paired_rounds(engine_path, torch_lines, peak_runs):
    """{(n, heads): [(ours ms, flops, torch ms or None, peak GFLOP/s or None)]}: scripts/bench's paired rounds, in
    which each shape's forward pass, torch's and the practical peak ran within seconds of each other."""
    torch = {(t["round"], t["n"], t["heads"]): t["ms"] for t in torch_lines if "round" in t}
    peak = {(p["round"], p["n_shape"], p["heads_shape"]): p["gflops"] for p in peak_runs if "round" in p}
    rounds = {}
    pattern = os.path.join(os.path.dirname(engine_path), "engine_round*-*-*.json")
    for path in sorted(glob.glob(pattern)):
        r, n, h = (int(g) for g in re.search(r"engine_round(\d+)-(\d+)-(\d+)\.json$", path).groups())
        medians, flops = engine_medians(path)
        key = ("Forward", n, h, 1)
        if key in medians:
            rounds.setdefault((n, h), []).append((medians[key], flops[key], torch.get((r, n, h)), peak.get((r, n, h))))
    return rounds


def median_of(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(value, spec):
    return format(value, spec) if value is not None else "-"


def read_json(path):
    if not path or not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        text = f.read().strip()
    return json.loads(text) if text else None


def main():
    engine_path, peaks_path, torch_path, repaint_path, notes = sys.argv[1:6]
    peak_path, blas_path, loaded_path, summary_path = (sys.argv[6:10] + [None] * 4)[:4]
    peak_runs = read_lines(peak_path)
    # the machine's practical peak when there are no paired rounds: the best of the runs, each the better of one
    # and two threads
    machine_peak = max((r["gflops"] for r in peak_runs), default=None)
    blas = read_json(blas_path)
    loaded = {r["n"]: r for r in read_lines(loaded_path)}
    medians, flops = engine_medians(engine_path)
    peaks = {(p["n"], p["heads"]): p for p in read_lines(peaks_path)}
    torch_lines = read_lines(torch_path)
    torch = {(t["n"], t["heads"]): t["ms"] for t in torch_lines}
    rounds = paired_rounds(engine_path, torch_lines, peak_runs)
    repaint = {r["n"]: r for r in read_lines(repaint_path)}

    shapes = sorted({(k[1], k[2]) for k in medians if k[0] == "Forward"}, key=lambda s: (s[1], s[0]))
    header = ("shape", "ms", "GFLOP/s", "of peak", "GEMM eff", "fwd/GEMMs", "peak MiB", "torch ms", "ours/torch",
              "1-cell ms", "edit p50 ms", "edit p95 ms", "GUI stall ms")
    rows = []
    worst_torch = worst_eff = worst_share = None
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
        share = gflops / machine_peak if machine_peak else None
        paired = rounds.get((n, h))
        if paired:  # ms, GFLOP/s, torch, the ratio and the share from the paired rounds: medians of each round's
            ms = median_of(o for o, _, _, _ in paired)
            gflops = flops[("Forward", n, h, 1)] / ms / 1e6
            t = median_of(tr for _, _, tr, _ in paired)
            ratio = median_of(o / tr if tr else None for o, _, tr, _ in paired)
            share = median_of(f / o / 1e6 / pk if pk else None for o, f, _, pk in paired)
        r = repaint.get(n) if h == 1 else None
        edit = medians.get(("EditOneCell", n, h, 1))
        shape = f"n={n} h={h}"
        rows.append((shape, fmt(ms, ".3g"), fmt(gflops, ".2f"), fmt(share, ".0%"), fmt(eff, ".2f"), fmt(over, ".2f"),
                     fmt(peak_mib, ".0f"), fmt(t, ".3g"), fmt(ratio, ".3f"), fmt(edit, ".3g"),
                     fmt(r["p50_ms"] if r else None, ".1f"), fmt(r["p95_ms"] if r else None, ".1f"),
                     fmt(r.get("stall_max_ms") if r else None, ".1f")))
        if ratio is not None and n >= 64 and (worst_torch is None or ratio > worst_torch[0]):
            worst_torch = (ratio, shape)
        if share is not None and n >= 512 and (worst_share is None or share < worst_share[0]):
            worst_share = (share, shape)
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

    print(f"ours: products on Eigen built for {medians_context.get('products', '?')} (chosen at run time)")
    if peak_runs:
        gflops = [r["gflops"] for r in peak_runs]
        print("practical peak: Eigen double GEMM 2048^3 compiled for this processor ({}), the better of 1 and 2 "
              "threads, run {} times (beside each shape's forward pass in every round): {:.0f}-{:.0f} GFLOP/s, "
              "median {:.0f}".format(peak_runs[0]["simd"], len(gflops), min(gflops), max(gflops),
                                     statistics.median(gflops)))
    if rounds:
        print("ms, torch ms: medians over {} paired rounds; ours/torch and of peak: the median of each round's ratio, "
              "ours, torch and the peak measured within seconds of each other (this host's speed drifts from minute "
              "to minute); GEMM eff and fwd/GEMMs from the interleaved run of all benchmarks".format(
                  max(len(v) for v in rounds.values())))
    if blas:
        print("torch ran on {} [{}]{}".format(blas["name"], blas["detail"], "" if blas["fair"] else
              "; NOT A FAIR COMPARISON: that is the reference BLAS, so the torch column measures it, not torch"))

    p4096 = peaks.get((4096, 1))
    r512, r4096, l512 = repaint.get(512), repaint.get(4096), loaded.get(512)
    summary = {
        "worst_ratio": worst_torch[0] if worst_torch else None, "worst_ratio_shape": worst_torch[1] if worst_torch else None,
        "torch_blas": (blas["name"] if blas["fair"] else blas["name"] + ", not fair") if blas else None,
        "worst_share": worst_share[0] if worst_share else None, "worst_share_shape": worst_share[1] if worst_share else None,
        "peak_mib_4096": p4096["peak_kib"] / 1024 if p4096 else None,
        "p95_512": r512["p95_ms"] if r512 else None, "p95_4096": r4096["p95_ms"] if r4096 else None,
        "p95_512_loaded": l512["p95_ms"] if l512 else None,
    }
    if summary_path:
        with open(summary_path, "w", encoding="utf-8") as f:
            json.dump(summary, f)


if __name__ == "__main__":
    main()
