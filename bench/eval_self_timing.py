#!/usr/bin/env python3
"""Each problem's own Model judged as itself on the CPU: how far from 1.00 the speedup comes out.

    bench/eval_self_timing.py HEADROOM [PROBLEM.py ...] [--rounds 3] [--settings default max1]
                              [--budget SECONDS] [-- EVAL_ARGS...]

Runs `headroom eval PROBLEMS --reference-as-candidate --device cpu --force` once per round and per
setting (default: the default settings, and `--max-time 1`), all the problems in one run, and
prints one row per evaluation: the speedup (the reference's cost over its own, evaluated as a
candidate), whether it lies within the tolerance (1.00 +- 0.05 at the default settings, +- 0.10 at
--max-time 1), how it was formed (the paired rounds' count and spread), and the machine's load
average when the run began. Then per problem and setting, and per setting over all problems, the
range of the speedups and how many fall within the tolerance.

With --budget, a run is started only while the time left holds the longest run so far (the first
always starts); ended by SIGTERM, the script prints the tables of what it has, the evaluations
the run under way finished included. The problems
default to bench/self_timing/*.py: KernelBench level 1's elementwise and reduction
problems at sizes the CPU runs in 1-20 ms. A machine busy with other work moves these figures by
more than the tolerance: run it on a quiet machine (the load average is printed with every run).
"""
import argparse
import glob
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

SETTINGS = {"default": ([], 0.05), "max1": (["--max-time", "1"], 0.10)}


def load():
    return os.getloadavg()[0]


def stored(db):
    """The evaluations in the store so far (those of a run ended midway included)."""
    if not os.path.exists(db):
        return []
    return sqlite3.connect(db).execute(
        "select problem, verdict, speedup, paired_rounds, paired_spread, clocks from evaluations order by problem").fetchall()


def run(headroom, problems, args, db, cache):
    if os.path.exists(db):
        os.remove(db)
    cmd = [headroom, "eval", *problems, "--reference-as-candidate", "--device", "cpu", "--force", "--db", db,
           "--cache", cache] + args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode < 0:
        raise KeyboardInterrupt  # ended by a signal, with this script (a time limit)
    if p.returncode != 0:
        sys.exit(f"headroom eval failed ({p.returncode}):\n{p.stderr[-2000:]}")


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("headroom")
    ap.add_argument("problems", nargs="*")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--settings", nargs="+", default=["default", "max1"], choices=sorted(SETTINGS))
    ap.add_argument("--budget", type=float, default=0, help="seconds for the whole script (0: no limit)")
    a = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    here = os.path.dirname(os.path.abspath(__file__))
    problems = a.problems or sorted(glob.glob(os.path.join(here, "self_timing", "*.py")))
    work = tempfile.mkdtemp(prefix="headroom-self-timing-")
    speedups = {s: [] for s in a.settings}
    per_problem = {}  # (problem, setting) -> speedups
    print("| setting | round | problem | verdict | speedup | within | paired rounds | paired spread | load at start |")
    print("| --- | ---: | --- | --- | ---: | --- | ---: | ---: | ---: |")
    start, longest, cut = time.monotonic(), 0.0, ""
    db, cache = os.path.join(work, "r.sqlite"), os.path.join(work, "cache")

    def show(setting, r, began):
        tol = SETTINGS[setting][1]
        for problem, verdict, speedup, rounds, spread, _ in stored(db):
            name = problem.split('/')[-1]
            per_problem.setdefault((name, setting), [])
            if speedup is not None:
                speedups[setting].append(speedup)
                per_problem[(name, setting)].append(speedup)
            within = "-" if speedup is None else ("yes" if abs(speedup - 1) <= tol else "NO")
            print(f"| {setting} | {r} | {name} | {verdict} | "
                  f"{'-' if speedup is None else f'{speedup:.3f}'} | {within} | "
                  f"{rounds if rounds is not None else '-'} | "
                  f"{'-' if spread is None else f'{spread:.3f}'} | {began:.2f} |", flush=True)

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        for r in range(1, a.rounds + 1):
            for s in a.settings:
                left = a.budget - (time.monotonic() - start)
                if a.budget and longest and left < longest:
                    cut = f"stopped before round {r} of {s}: {left:.0f} s left, the longest run took {longest:.0f} s"
                    break
                run_start, began = time.monotonic(), load()
                try:
                    run(a.headroom, problems, SETTINGS[s][0] + extra, db, cache)
                except KeyboardInterrupt:
                    cut = f"ended by a signal in round {r} of {s}: its evaluations done so far are above"
                    show(s, r, began)
                    break
                longest = max(longest, time.monotonic() - run_start)
                show(s, r, began)
            if cut:
                break
    except KeyboardInterrupt:
        cut = "ended by a signal"
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print()
    if cut:
        print(cut)
        print()
    print("| setting | problem | evaluations | min | median | max | within tolerance |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
    for (name, s), v in sorted(per_problem.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        print(summary_row(s, name, v))
    for s, v in speedups.items():
        print(summary_row(s, "all", v))
    return 0


def summary_row(setting, problem, v):
    tol = SETTINGS[setting][1]
    if not v:
        return f"| {setting} | {problem} | 0 | - | - | - | no speedup |"
    inside = sum(1 for x in v if abs(x - 1) <= tol)
    return (f"| {setting} | {problem} | {len(v)} | {min(v):.3f} | {statistics.median(v):.3f} | {max(v):.3f} | "
            f"{inside} of {len(v)} within 1.00 +- {tol:.2f} |")


if __name__ == "__main__":
    sys.exit(main())
