"""Replays recorded paired rounds under the two ways of turning them into a speedup (paired.hpp).

Reads the workers' sample logs of evaluations that ran paired rounds (HEADROOM_EVAL_SAMPLES_TO=DIR,
from session 10 on: the column saying which samples were read back to be checked finds the
candidate's worker). Per evaluation it finds the candidate's worker (its requests' outputs were
checked; request 0 is its own timing, 1..N its paired turns) and the second reference worker that
started after it (request 0 its uncounted warm-up turn, 1..N its turns), and computes:

  ratios  the geometric mean of the two orders' medians of the rounds' ratios, each turn costing
          the larger of its device median and its host median (the estimate before session 11,
          and still the one for turns timed with their dispatch)
  sides   each side costs the larger of the median over its turns of their device medians and
          the least of its turns' host medians (session 11, for held turns)
  device  the device medians alone (what neither host term adds: the floor of the comparison)
  harness what the harness now takes: sides when every turn was held, else ratios (logs from
          session 11 on, whose samples say whether they were held)

For a problem evaluated against itself every figure should be 1. The last lines count, per
estimate, how many evaluations fell within 1.00 +- 0.02.

Usage: python3 bench/paired_replay.py DIR [DIR...]
"""
import math
import os
import statistics
import sys
import glob

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sample_log_report import rows_of  # noqa: E402


def turns_of(path):
    """{request: {"device": [...], "host": [...], "checked": n, "began": s}} of one worker."""
    requests = {}
    for r in rows_of(path):
        q = requests.setdefault(r["request"], {"device": [], "host": [], "checked": 0, "began": None, "held": []})
        if r["sample"] < 0:
            continue
        if q["began"] is None:
            q["began"] = r["clock"]
        q["checked"] += r["checked"]
        if not r["warm"]:
            q["device"].append(r["event"])
            q["host"].append(r["host"])
            q["held"].append(r["held"])
    return {k: v for k, v in requests.items() if v["device"]}


def evaluations(folder):
    workers = {}
    for path in glob.glob(os.path.join(folder, "samples-*.tsv")):
        workers[os.path.basename(path)[len("samples-"):-len(".tsv")]] = turns_of(path)
    began = lambda w: workers[w].get(0, {}).get("began")
    candidates = sorted((w for w, t in workers.items() if t.get(0, {}).get("checked") and began(w) is not None), key=began)
    for c in candidates:
        later = [w for w, t in workers.items()
                 if w != c and began(w) is not None and began(w) > began(c) and len(t) > 2
                 and not any(q["checked"] for q in t.values())]
        if not later:
            continue
        r = min(later, key=began)
        n = min(len(workers[c]), len(workers[r])) - 1
        if n >= 2:
            yield c, r, [workers[c][k] for k in range(1, n + 1)], [workers[r][k] for k in range(1, n + 1)]


def estimates(candidate, reference):
    med = statistics.median
    cost = lambda t: max(med(t["device"]), med(t["host"]))
    ratios = [cost(r) / cost(c) for c, r in zip(candidate, reference)]
    first, second = ratios[0::2], ratios[1::2]
    side = lambda turns: max(med([med(t["device"]) for t in turns]), min(med(t["host"]) for t in turns))
    device = lambda turns: med([med(t["device"]) for t in turns])
    # What the harness does (paired.hpp): the sides' costs when every turn was held. Logs before
    # session 11's held column cannot say; then both are shown.
    held = [h for t in candidate + reference for h in t["held"]]
    known = bool(held) and None not in held
    out = {"ratios": math.sqrt(med(first) * med(second)) if second else med(first),
           "sides": side(reference) / side(candidate),
           "device": device(reference) / device(candidate)}
    if known:
        out["harness"] = out["sides"] if all(held) else out["ratios"]
    return out, ratios


def main(folders):
    every = {}
    for folder in folders:
        print(f"## {folder}")
        for c, r, ct, rt in evaluations(folder):
            e, ratios = estimates(ct, rt)
            for k, v in e.items():
                every.setdefault(k, []).append(v)
            print(f"candidate {c}, reference {r}, {len(ct)} rounds (ratios {min(ratios):.3f}-{max(ratios):.3f}): "
                  + ", ".join(f"{k} {v:.4f}" for k, v in e.items()))
    if not every:
        print("no paired evaluations found (logs from session 10 on, with the checked column)")
        return 1
    print()
    for k, v in every.items():
        within = sum(abs(x - 1) <= 0.02 for x in v)
        print(f"{k}: {within} of {len(v)} within 1.00 +- 0.02, range {min(v):.4f}-{max(v):.4f}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 else 2)
    sys.exit(main(sys.argv[1:]))
