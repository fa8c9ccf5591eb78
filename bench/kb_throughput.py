"""Evaluation throughput at KernelBench's pace (bench/RESULTS.md, "Evaluation throughput").

    python3 bench/kb_throughput.py AFTER_DIR [BEFORE_DIR]

Each DIR is what `scripts/gpu kb-throughput` wrote for one build: eval.sqlite (the store), wall_s
(the seconds `headroom eval` ran, compiling included) and eval.err (its stderr, with
HEADROOM_EVAL_TRACE=1's phase lines). Prints Markdown:
- evaluations an hour per build, from the store's count and the command's wall clock;
- the verdicts of the two builds on the same (problem, candidate) pairs, and every pair that differs;
- each problem's own Model against itself (the reference as its candidate): the speedups against
  1.00 +- 0.02;
- where an evaluation's time went (bench/eval_phases.py's table) for the first build.
"""
import os
import sqlite3
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_phases  # noqa: E402

SELF_TOLERANCE = 0.02


def load(run_dir):
    store = os.path.join(run_dir, "eval.sqlite")
    if not os.path.exists(store):
        sys.exit(f"kb_throughput: no store at {store}")
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    rows = db.execute("SELECT problem, candidate_path, source, verdict, reasons, speedup, duration_s "
                      "FROM evaluations ORDER BY started_at").fetchall()
    latest = {}
    for problem, path, source, verdict, reasons, speedup, duration in rows:
        key = (os.path.basename(problem), os.path.basename(path or ""), source)
        latest[key] = {"verdict": verdict, "reasons": reasons or "[]", "speedup": speedup, "duration": duration}
    wall = None
    try:
        with open(os.path.join(run_dir, "wall_s")) as f:
            wall = float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    return latest, wall


def rate(latest, wall):
    if not wall or not latest:
        return "n/a"
    return f"{len(latest) / wall * 3600:.0f}"


def is_self(key):
    # The reference as its candidate: eval stores the problem file itself as the candidate.
    return key[1] == key[0] or key[2] == "reference"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    after_dir = sys.argv[1]
    before_dir = sys.argv[2] if len(sys.argv) > 2 else None
    after, after_wall = load(after_dir)
    print("| build | evaluations | wall s | evaluations an hour |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| after | {len(after)} | {after_wall or 'n/a'} | **{rate(after, after_wall)}** |")
    before = None
    if before_dir:
        before, before_wall = load(before_dir)
        print(f"| before | {len(before)} | {before_wall or 'n/a'} | {rate(before, before_wall)} |")
    if before is not None:
        shared = sorted(set(after) & set(before))
        differ = [k for k in shared if after[k]["verdict"] != before[k]["verdict"]]
        print(f"\n**Verdicts: {len(shared) - len(differ)} of {len(shared)} pairs the same** in both builds")
        for k in differ:
            print(f"- {k[0]} / {k[1]}: {before[k]['verdict']} {before[k]['reasons']} before, "
                  f"{after[k]['verdict']} {after[k]['reasons']} after")
    selves = sorted((k, v["speedup"]) for k, v in after.items() if is_self(k) and v["speedup"])
    if selves:
        inside = [s for _, s in selves if abs(s - 1) <= SELF_TOLERANCE]
        print(f"\n**The reference against itself: {len(inside)} of {len(selves)} within 1.00 +- {SELF_TOLERANCE}**, "
              f"median {statistics.median(s for _, s in selves):.4f}, range {min(s for _, s in selves):.3f}-"
              f"{max(s for _, s in selves):.3f}")
        for k, s in selves:
            if abs(s - 1) > SELF_TOLERANCE:
                print(f"- {k[0]}: {s:.3f}")
    verdicts = {}
    for v in after.values():
        verdicts[v["verdict"]] = verdicts.get(v["verdict"], 0) + 1
    print("\nVerdicts after: " + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())))
    trace = os.path.join(after_dir, "eval.err")
    if os.path.exists(trace):
        print()
        eval_phases.print_table(eval_phases.read(trace), after_wall)


if __name__ == "__main__":
    main()
