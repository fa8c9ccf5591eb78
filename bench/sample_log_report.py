"""Summarises the workers' sample logs (HEADROOM_EVAL_SAMPLES_TO=DIR, docs/eval.md "Timing").

One line per worker process and timing request, in the order they began: when the request began
(seconds after the folder's first request, on the machine's monotonic clock; "?" for logs written
before that column), samples, device and host medians, the share of samples whose host time
exceeded their device time, the process's host-speed probe before and after the samples (samples
-1 and -2), how many samples' outputs were read back to be checked and the host median of the
samples right after those (logs from session 10 on), and the CPUs it ran on. A request whose host median or probe stands far above the
others ran while the host was slow (bench/RESULTS.md, sessions 8 and 9).

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
                     "warm": f[6] == "1", "cpu": int(f[8]) if len(f) > 8 else -1,
                     "clock": float(f[9]) if len(f) > 9 else None,
                     "checked": len(f) > 10 and f[10] == "1",
                     "held": f[11] == "1" if len(f) > 11 else None})
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
    print("| folder | pid | request | began s | samples | device median ms | host median ms | host > device "
          "| probe before ms | probe after ms | checked | host after a check ms | CPUs |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for folder in folders:
        lines = []
        for path in sorted(glob.glob(os.path.join(folder, "samples-*.tsv"))):
            pid = os.path.basename(path)[len("samples-"):-len(".tsv")]
            by_request = {}
            for r in rows_of(path):
                by_request.setdefault(r["request"], []).append(r)
            for request, rows in sorted(by_request.items()):
                timed = [r for r in rows if not r["warm"] and r["sample"] >= 0]
                if not timed:
                    continue
                clocks = [r["clock"] for r in rows if r["clock"] is not None]
                lines.append((min(clocks) if clocks else None, pid, request, rows, timed))
        known = [line[0] for line in lines if line[0] is not None]
        first = min(known) if known else 0
        lines.sort(key=lambda line: (line[0] is None, line[0] or 0, line[1], line[2]))
        for began, pid, request, rows, timed in lines:
            device = [r["event"] for r in timed]
            host = [r["host"] for r in timed]
            slower = sum(h > d for h, d in zip(host, device)) / len(timed)
            probes = {r["sample"]: r["host"] for r in rows if r["sample"] < 0}
            probe_text = [f"{probes[k]:.4f}" if k in probes else "n/a" for k in (-1, -2)]
            began_text = f"{began - first:.1f}" if began is not None else "?"
            # The samples that followed a sample whose outputs were read back to be checked (the
            # candidate's side only): is the host slower right after a read-back?
            after = [b["host"] for a, b in zip(timed, timed[1:]) if a["checked"] and b["sample"] == a["sample"] + 1]
            after_text = f"{statistics.median(after):.4f}" if after else "-"
            print(f"| {os.path.basename(folder.rstrip('/'))} | {pid} | {request} | {began_text} | {len(timed)} "
                  f"| {statistics.median(device):.4f} | {statistics.median(host):.4f} | {slower:.0%} "
                  f"| {probe_text[0]} | {probe_text[1]} | {sum(r['checked'] for r in timed)} | {after_text} "
                  f"| {cpu_ranges(r['cpu'] for r in rows)} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
