#!/usr/bin/env python3
"""The study's scale sweep: how the addressable fraction f and the GEMM+attention share of kernel
time move with model size, from study folders recorded at several presets (`headroom study
--preset small|medium|large|xl`, workloads/README.md "Sizes for the scale sweep"), set beside the
published figures (GEMM+attention 80-86% of transformers' kernel time; a 1.235x kernel speedup
worth about 1% end to end on transformers).

Reads each folder's summary.json (what `headroom study` writes); runs nothing. Prints a Markdown
table, and with --section writes it as a report section (docs/report.md) for `headroom study
--section`.

  python3 bench/study_scale.py STUDY_DIR... [--variant eager] [--section scale.json]
  scripts/gpu --no-tests study-scale      (records the sweep on a GPU machine, then runs this)
"""
import argparse
import json
import os
import re
import sys

PRESET_ORDER = ["tiny", "small", "medium", "large", "xl"]
PUBLISHED_SHARE = "80-86%"
SLOW, FAST = 1.235, 1.552  # the published kernel speedups (KernelBench level 1's median; recommenders')


def amdahl(f, s):
    return 1.0 / ((1.0 - f) + f / s)


def params_of(description):
    """'(742M params' or '(8.03B params' in the workload's own description, else ''."""
    m = re.search(r"\(([\d.]+[MB]) params", description or "")
    return m.group(1) if m else ""


def shape_of(description):
    """The description up to its parenthesis: 'gpt L12 d2048 seq2048 batch8'."""
    return (description or "").split(" (")[0]


def read(folder, variant):
    path = os.path.join(folder, "summary.json")
    try:
        with open(path) as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"study_scale: {path}: {e} (a study folder reported by `headroom study` holds it)")
    if s.get("kind") != "study-summary":
        sys.exit(f"study_scale: {path} is not a study summary")
    out = []
    for r in s.get("rows", []):
        if r.get("variant") != variant or r.get("domain") != "transformer":
            continue
        run = r.get("headroom") or {}
        fig, harness = run.get("figures") or {}, run.get("harness") or {}
        if run.get("status") != "ok" or not fig:
            out.append(dict(workload=r["workload"], preset=s.get("preset", "?"), status=run.get("status", "missing")))
            continue
        f = fig["addressable_fraction"]
        out.append(dict(workload=r["workload"], preset=s.get("preset", "?"), status="ok",
                        shape=shape_of(harness.get("description")), params=params_of(harness.get("description")),
                        step_ms=1e3 * harness.get("median_step_s", float("nan")), f=f,
                        share=fig.get("gemm_attention_share_of_kernels"), idle=fig.get("idle_fraction"),
                        slow=amdahl(f, SLOW), fast=amdahl(f, FAST), device=harness.get("device", "")))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("studies", nargs="+", help="study folders, one per preset")
    p.add_argument("--variant", default="eager", help="eager (default) or compile")
    p.add_argument("--section", help="also write the table as a report section (JSON) here")
    a = p.parse_args()

    rows = [r for d in a.studies for r in read(d, a.variant)]
    if not rows:
        sys.exit(f"study_scale: no transformer row of variant {a.variant} in {', '.join(a.studies)}")
    order = {w: i for i, w in enumerate(dict.fromkeys(r["workload"] for r in rows))}
    rank = {p: i for i, p in enumerate(PRESET_ORDER)}
    rows.sort(key=lambda r: (order[r["workload"]], rank.get(r["preset"], 99)))

    columns = ["workload", "preset", "what ran", "params", "median step", "GEMM+attention of kernel time",
               "idle", "addressable f", f"S at {SLOW}x", f"S at {FAST}x"]
    table = []
    for r in rows:
        if r["status"] != "ok":
            table.append([r["workload"], r["preset"], f"not recorded ({r['status']})"] + [""] * 7)
            continue
        table.append([r["workload"], r["preset"], r["shape"], r["params"], f"{r['step_ms']:.2f} ms",
                      f"{100 * r['share']:.1f}%", f"{100 * r['idle']:.1f}%", f"{100 * r['f']:.1f}%",
                      f"{100 * (r['slow'] - 1):+.1f}%", f"{100 * (r['fast'] - 1):+.1f}%"])

    ok = [r for r in rows if r["status"] == "ok"]
    trends = []
    for w in order:
        mine = [r for r in ok if r["workload"] == w]
        if len(mine) >= 2:
            lo, hi = mine[0], mine[-1]
            trends.append(f"{w}: f {100 * lo['f']:.1f}% at {lo['preset']} ({lo['params']}) to {100 * hi['f']:.1f}% at "
                          f"{hi['preset']} ({hi['params']}); GEMM+attention {100 * lo['share']:.1f}% to "
                          f"{100 * hi['share']:.1f}%")
    devices = sorted({r["device"] for r in ok if r["device"]})
    paragraphs = [
        "The transformer workloads at four sizes each, the tokens of a step held fixed (workloads/README.md, "
        f"\"Sizes for the scale sweep\"), {a.variant}, recorded by headroom's profiler"
        + (f" on {', '.join(devices)}" if devices else "") + ".",
        f"Published: GEMM+attention {PUBLISHED_SHARE} of transformers' kernel time, and a {SLOW}x kernel speedup "
        "worth about 1% end to end on transformers. S is the projected end-to-end speedup when every "
        "addressable kernel runs that much faster (Amdahl), as a gain.",
    ] + trends

    print(f"| {' | '.join(columns)} |")
    print("| " + " | ".join("---" if i < 4 else "---:" for i in range(len(columns))) + " |")
    for row in table:
        print(f"| {' | '.join(row)} |")
    print()
    for line in paragraphs:
        print(f"- {line}")

    if a.section:
        section = {"headroom_report_section": 1, "kind": "scale-sweep",
                   "title": "How the addressable fraction moves with model size",
                   "paragraphs": paragraphs,
                   "tables": [{"caption": "The transformers at four sizes", "columns": columns, "rows": table}],
                   "bars": {"label": "addressable fraction f (%)",
                            "values": [{"label": f"{r['workload']} {r['preset']} ({r['params']})",
                                        "value": round(100 * r["f"], 2)} for r in ok]}}
        with open(a.section, "w") as f:
            json.dump(section, f)


if __name__ == "__main__":
    main()
