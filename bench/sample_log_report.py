"""Summarises the workers' sample logs (HEADROOM_EVAL_SAMPLES_TO=DIR, docs/eval.md "Timing").

One line per worker process and timing request: samples, device and host medians, the share of
samples whose host time exceeded their device time, the process's host-speed probe (sample -1), and
the CPUs it ran on. A process whose host median or probe stands far above the others is a
slow-dispatch process (bench/RESULTS.md, session 8).

Usage: python3 bench/sample_log_report.py DIR [DIR...]   (the folders holding samples-<pid>.tsv)
"""
import glob
import os
import statistics
import sys


def rows_of(path):
    rows = []
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) < 8:
            continue
        rows.append({"request": int(f[0]), "sample": int(f[1]), "event": float(f[3]), "host": float(f[4]),
                     "warm": f[6] == "1", "cpu": int(f[8]) if len(f) > 8 else -1})
    return rows


def cpu_ranges(cpus):
    cpus = sorted(set(c for c in cpus if c >= 0))
    if not cpus:
        return "?"
    out, start, prev = [], cpus[0], cpus[0]
    for c in cpus[1:] + [None]:
        if c is not None and c == prev + 1:
            prev = c
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        if c is not None:
            start = prev = c
    return ",".join(out)


def main(folders):
    print("| folder | pid | request | samples | device median ms | host median ms | host > device | probe ms | CPUs |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for folder in folders:
        for path in sorted(glob.glob(os.path.join(folder, "samples-*.tsv"))):
            pid = os.path.basename(path)[len("samples-"):-len(".tsv")]
            by_request = {}
            for r in rows_of(path):
                by_request.setdefault(r["request"], []).append(r)
            for request, rows in sorted(by_request.items()):
                timed = [r for r in rows if not r["warm"] and r["sample"] >= 0]
                probe = [r["host"] for r in rows if r["sample"] == -1]
                if not timed:
                    continue
                device = [r["event"] for r in timed]
                host = [r["host"] for r in timed]
                slower = sum(h > d for h, d in zip(host, device)) / len(timed)
                probe_text = f"{probe[0]:.4f}" if probe else "n/a"
                print(f"| {os.path.basename(folder.rstrip('/'))} | {pid} | {request} | {len(timed)} "
                      f"| {statistics.median(device):.4f} | {statistics.median(host):.4f} | {slower:.0%} "
                      f"| {probe_text} | {cpu_ranges(r['cpu'] for r in rows)} |")

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
