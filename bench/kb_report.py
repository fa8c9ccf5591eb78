"""The KernelBench level-1 figures (bench/RESULTS.md) from a run's store and audit.

    python3 bench/kb_report.py KB_DIR [LEVEL_DIR]

KB_DIR holds kb.sqlite and kb-audit.jsonl (`scripts/gpu kernelbench`, collected with
scripts/kb-collect); LEVEL_DIR (default .deps/KernelBench/level1) lists the problems, so that the
ones not yet evaluated are named. Prints Markdown: how many problems are done, the speedups of each
problem's own Model as its candidate against the 1.00 +- 0.02 it must show, which problems a
tensor of zeros (and the other fakes) passes under KernelBench's legacy check, and evaluations per
hour per GPU from the intervals between consecutive evaluations on one device.
"""
import json
import os
import sqlite3
import statistics
import sys
from datetime import datetime

TOLERANCE = 0.02
# Consecutive evaluations further apart than this belong to different runs.
MAX_INTERVAL_S = 900


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    kb_dir = sys.argv[1]
    level_dir = sys.argv[2] if len(sys.argv) > 2 else ".deps/KernelBench/level1"
    store = os.path.join(kb_dir, "kb.sqlite")
    if not os.path.exists(store):
        sys.exit(f"kb_report: no store at {store}")
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT problem, verdict, speedup, eager_median_ms, started_at, device, gpu, duration_s,"
        " candidate_rel_spread, eager_rel_spread, clocks FROM evaluations ORDER BY started_at").fetchall()
    latest = {}
    detail = {}  # what an outlier's row says about how it was timed
    for problem, verdict, speedup, eager_ms, started, device, gpu, duration, c_spread, e_spread, clocks in rows:
        latest[problem] = (verdict, speedup, eager_ms, started, device, gpu)
        mode = "dispatch included" if "dispatch included" in (clocks or "") else "held"
        if "launch-bound" in (clocks or ""):
            mode += ", launch-bound"  # the candidate's host time set its cost (commit efe3138 on)
        if "paired rounds" in (clocks or ""):
            # "speedup from 6 paired rounds on CPU 31 (ratios ...)" (stores with paired rounds), or why they did not run
            mode += ", " + next(part for part in clocks.split("; ") if "paired rounds" in part)
        detail[problem] = (f"{device}, {started}, spreads {100 * (c_spread or 0):.2f}% / {100 * (e_spread or 0):.2f}%, "
                           f"{mode}")

    name = lambda p: p.split("/")[-1]
    total = None
    missing = []
    if os.path.isdir(level_dir):
        files = sorted(f[:-3] for f in os.listdir(level_dir) if f.endswith(".py"))
        total = len(files)
        done = {name(p) for p in latest}
        missing = [f for f in files if f not in done]
        missing.sort(key=lambda f: int(f.split("_")[0]) if f.split("_")[0].isdigit() else 0)

    gpus = sorted({r[5] for r in latest.values()})
    print(f"**{len(latest)}{' of ' + str(total) if total else ''} problems evaluated** ({len(rows)} evaluations; "
          f"{', '.join(gpus)}).")
    verdicts = {}
    for v in latest.values():
        verdicts[v[0]] = verdicts.get(v[0], 0) + 1
    print("Verdicts (latest evaluation of each problem): " + ", ".join(f"{k} {n}" for k, n in sorted(verdicts.items())))

    speedups = {p: v[1] for p, v in latest.items() if v[1] is not None}
    if speedups:
        values = sorted(speedups.values())
        outside = sorted((p for p, s in speedups.items() if abs(s - 1) > TOLERANCE), key=lambda p: speedups[p])
        print(f"\nSpeedup of each problem's own Model: median {statistics.median(values):.4f}, range "
              f"{values[0]:.4f}-{values[-1]:.4f}; **within 1.00 +- {TOLERANCE}: {len(values) - len(outside)} of "
              f"{len(values)}**.")
        for p in outside:
            print(f"- outside: {name(p)} {speedups[p]:.4f} (eager {latest[p][2]:.4f} ms; {detail[p]})")

    audit_path = os.path.join(kb_dir, "kb-audit.jsonl")
    if os.path.exists(audit_path):
        audits = {}
        with open(audit_path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    audits[r["problem"]] = r  # a continued run appends: the last row is the latest checker's
        print(f"\nAudit ({len(audits)} problems): which fakes KernelBench's legacy check passes (on the problem's own inputs)")
        print("\n| fake | passes legacy 1e-2 | passes legacy 1e-4 (fp32) | passes ours |")
        print("| --- | --- | --- | --- |")
        for fake in ("zeros", "constant", "mean", "passthrough"):
            cols = []
            for key in ("passes_legacy_1e-2", "passes_legacy_1e-4", "passes_ours"):
                hits = [name(p) for p, r in sorted(audits.items()) for fk in r["fakes"] if fk["name"] == fake and fk[key]]
                cols.append(f"{len(hits)}" + (f": {', '.join(hits)}" if hits else ""))
            print(f"| {fake} | " + " | ".join(cols) + " |")
        weak = [name(p) for p, r in audits.items() if not r.get("discriminating", False) and not r.get("error")]
        print(f"\nOur check rejects every fake on {len(audits) - len(weak)} of {len(audits)} audited problems"
              + (f"; not on: {', '.join(weak)}" if weak else "."))

    intervals = []
    by_device = {}
    for problem, verdict, speedup, eager_ms, started, device, *_ in rows:
        by_device.setdefault(device, []).append(datetime.strptime(started, "%Y-%m-%dT%H:%M:%SZ"))
    for times in by_device.values():
        for a, b in zip(times, times[1:]):
            gap = (b - a).total_seconds()
            if 0 < gap <= MAX_INTERVAL_S:
                intervals.append(gap)
    if intervals:
        print(f"\nThroughput: {len(intervals)} intervals between consecutive evaluations on one GPU (reference, audit "
              f"and candidate of a problem): median {statistics.median(intervals):.0f} s, mean "
              f"{statistics.mean(intervals):.0f} s; **{3600 / statistics.mean(intervals):.0f} evaluations an hour "
              f"per GPU** over these problems.")
    if missing:
        print(f"\nNot yet evaluated ({len(missing)}): " + ", ".join(missing))


if __name__ == "__main__":
    main()
