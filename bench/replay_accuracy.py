#!/usr/bin/env python3
"""The replay's accuracy over a folder of traces, as a Markdown table for bench/RESULTS.md.

For every trace `headroom project --replay` can replay (host activity), one row per replayed
timeline: its steps, the error of the replay with nothing shrunk against the measured steps (mean
and max of |replayed - measured| / measured, Lumos's form) with measured latencies and with typical
latencies, and the end-to-end speedup the replay and Amdahl give when the addressable kernels run
SPEEDUP times faster. Traces without host activity are listed as such.

Usage: replay_accuracy.py HEADROOM FOLDER [SPEEDUP]
"""
import json
import pathlib
import subprocess
import sys


def percent(x):
    return f"{100 * x:.2f}%"


def speedup(x):
    return "inf" if x is None else f"{x:.3f}x"


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    headroom, folder = sys.argv[1], pathlib.Path(sys.argv[2])
    factor = sys.argv[3] if len(sys.argv) > 3 else "2"
    rows, skipped = [], []
    for path in sorted(folder.glob("*.json.gz")):
        run = subprocess.run([headroom, "project", str(path), "--speedup", factor, "--replay", "--json"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            skipped.append((path.name, run.stderr.strip().splitlines()[-1] if run.stderr.strip() else "error"))
            continue
        p = json.loads(run.stdout)
        replayed = [t for t in p["timelines"] if t["replayed"]]
        if not replayed:
            why = "; ".join(t["not_replayed"] for t in p["timelines"])
            if not why:
                why = p["notes"][0].split(":")[0] if p["notes"] else "nothing replayed"
            skipped.append((path.name, why))
            continue
        for t in replayed:
            steps = t["steps"]
            measured = sum(s["measured_ns"] for s in steps)
            shrunk = sum(s["shrunk_ns"] for s in steps)
            replay = sum(s["replayed_ns"] for s in steps)
            amdahl = sum(s["amdahl_ns"] for s in steps)
            rows.append((path.name.removesuffix(".json.gz"), t["label"], len(steps), measured / len(steps) / 1e6,
                         t["error"]["mean"], t["error"]["max"], t["error_typical"]["mean"], t["error_typical"]["max"],
                         replay / shrunk if shrunk > 0 else None, measured / amdahl if amdahl > 0 else None))
    print(f"| trace | timeline | steps | mean step ms | replay error mean | max | typical error mean | max "
          f"| replay at {factor}x | Amdahl at {factor}x |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.2f} | {percent(r[4])} | {percent(r[5])} | {percent(r[6])} "
              f"| {percent(r[7])} | {speedup(r[8])} | {speedup(r[9])} |")
    if skipped:
        print()
        print("Not replayed:")
        for name, why in skipped:
            print(f"- {name}: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
