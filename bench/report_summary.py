"""The last line of scripts/bench, from the figures report.py and report_gpt2.py wrote.

report_summary.py ENGINE_SUMMARY_JSON GPT2_SUMMARY_JSON
A figure that is missing prints as "-".
"""

import json
import os
import sys


def read(path):
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main():
    figures = {**read(sys.argv[1]), **read(sys.argv[2])}

    def f(key, spec):
        value = figures.get(key)
        return "-" if value is None else format(value, spec)

    def s(key):
        return figures.get(key) or "-"

    print(f"summary: worst ratio to torch {f('worst_ratio', '.2f')} at {s('worst_ratio_shape')} "
          f"(n >= 64, torch BLAS {s('torch_blas')}); "
          f"worst share of peak {f('worst_share', '.0%')} at {s('worst_share_shape')} (n >= 512); "
          f"peak memory at n=4096 {f('peak_mib_4096', '.0f')} MiB; "
          f"p95 edit-to-repaint at n=512 {f('p95_512', '.1f')} ms, at n=4096 {f('p95_4096', '.1f')} ms, "
          f"at n=512 loaded {f('p95_512_loaded', '.1f')} ms; "
          f"gpt2 64 tokens: ratio to torch f32 {f('gpt2_ratio', '.2f')}, last-layer edit {f('edit_last_ms', '.1f')} ms, "
          f"first-layer edit {f('edit_first_ms', '.1f')} ms")


if __name__ == "__main__":
    main()
