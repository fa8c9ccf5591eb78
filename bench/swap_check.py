#!/usr/bin/env python3
"""The projection checked against real kernel swaps (docs/method.md, "Checking a swap"), on a GPU.

For each swap case (a workload and the kernels `--swap` replaces in it, workloads/swap.py):
  1. the in-process A/B: REPS processes, each alternating blocks of steps with the swap off and on
     (--swap-ab), the step time's median per arm;
  2. the program traced before the swap (--swap-arm off) and after it (--swap-arm on) by
     `headroom profile`;
  3. `headroom check-swap` of the two traces with the kernel speedups `headroom eval` measured on
     the swap problems (suites/swap: the workloads' own shapes, the very kernels swapped in), and
     again with the speedups the swapped kernels showed inside the program (the check's in-situ
     figures), which separates the projection's error from the error of the speedup it was given;
  4. for a case whose rules name operators by their ranges, both checks once more with the host's side
     given to the replay as well (--host-range: each range's host work before against after, the
     check's in-situ host speedup), which says what the projection lacks where a swap fused an
     operator's eager operations (dispatch and synchronisation the kernels' speedups cannot describe).
--eval first judges the swap problems (suites/swap/make_candidates.py writes the candidates) into
OUT/swap.sqlite; without it, OUT/swap.sqlite (or --results) must hold them.

  bench/swap_check.py HEADROOM OUT [--cases dlrm_infer,...] [--reps 3] [--eval] [--results DB]

Writes OUT/CASE/{ab*.json,before.sqlite,after.sqlite,check.json,check.txt,section.json,...} and
OUT/summary.md (the table bench/RESULTS.md records), printed at the end; what a case could not do is
said in its row. Cases:
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FORWARD = "swap:embedding_bag_forward=@dlrm_embedding_forward"
BACKWARD = "swap:rowwise_adagrad_update=@dlrm_embedding_backward"
GELU = ["--kernel", "GeluCUDAKernelImpl|gelu_tanh_forward_kernel=@gpt_gelu_forward",
        "--kernel", "GeluBackwardCUDAKernelImpl|gelu_tanh_backward_kernel=@gpt_gelu_backward"]
CROSS = "swap:cross_forward=@dlrmv2_cross_forward"
TRAIN = ["--mode", "train", "--table-optimizer", "rowwise-adagrad"]
# name: (script, arguments, swap, A/B steps and block, trace steps, check-swap rules, results source)
CASES = {
    "dlrm_train": ("dlrm.py", TRAIN, "embedding", (60, 5), 20, ["--range", FORWARD, "--range", BACKWARD], "swap"),
    "dlrm_infer": ("dlrm.py", ["--mode", "infer"], "embedding", (200, 10), 40, ["--range", FORWARD], "swap"),
    "dlrmv2_train": ("dlrmv2.py", TRAIN, "embedding", (60, 5), 20, ["--range", FORWARD, "--range", BACKWARD], "swap"),
    # The cross network's swap moves the step by about a point, and this training step drifts by
    # several within a process (H100): short blocks, many of them.
    "dlrmv2_cross": ("dlrmv2.py", TRAIN, "cross", (200, 4), 20, ["--range", CROSS], "swap"),
    "dlrmv2_cross_infer": ("dlrmv2.py", ["--mode", "infer"], "cross", (200, 10), 40, ["--range", CROSS], "swap"),
    "gpt_gelu": ("gpt.py", ["--mode", "train"], "gelu", (32, 4), 10, GELU, "swap"),
    "gpt_gelu_slow": ("gpt.py", ["--mode", "train"], "gelu-slow", (32, 4), 10, GELU, "swap-slow3"),
}
__doc__ += "".join(f"  {n:<14} {c[0]} {' '.join(c[1])} --swap {c[2]}\n" for n, c in CASES.items())


def sh(cmd, log, timeout):
    """Runs cmd with its output appended to log; returns its exit status (124 past timeout)."""
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        try:
            return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout, cwd=ROOT).returncode
        except subprocess.TimeoutExpired:
            f.write(f"cut after {timeout} s\n")
            return 124


def workload(script, args, swap, *more):
    return [sys.executable, os.path.join("workloads", script), *args, "--swap", swap, *more]


def ab_figures(paths):
    """Per process: the swap's gain in points of the off arm's median step (minus ab_overhead_pct)."""
    rows = []
    for p in paths:
        with open(p) as f:
            s = json.load(f)
        rows.append({"off_ms": 1e3 * s["ab_off_median_seconds"], "on_ms": 1e3 * s["ab_on_median_seconds"],
                     "gain": -s["ab_overhead_pct"]})
    return rows


def check(headroom, case_dir, rules, results, source, suffix=""):
    base = [headroom, "check-swap", os.path.join(case_dir, "before.sqlite"), "--after",
            os.path.join(case_dir, "after.sqlite"), *rules]
    if any("=@" in r for r in rules):
        base += ["--results", results, "--source", source]
    log = os.path.join(case_dir, "check.log")
    rc = sh(base + ["-o", os.path.join(case_dir, f"check{suffix}.txt")], log, 600)
    if rc != 0:
        return None
    sh(base + ["--json", "-o", os.path.join(case_dir, f"check{suffix}.json"),
               "--section", os.path.join(case_dir, f"section{suffix}.json"),
               "--section-title", f"Swap check: {os.path.basename(case_dir)}{suffix}",
               "--workload", os.path.basename(case_dir)], log, 600)
    with open(os.path.join(case_dir, f"check{suffix}.json")) as f:
        return json.load(f)


def host_rules(rules, figures):
    """--host-range rules from the in-situ host speedups of the range rules (none for name rules)."""
    out = []
    for k, i in enumerate(range(0, len(rules), 2)):
        if rules[i] != "--range" or k >= len(figures["in_situ"]):
            continue
        speedup = figures["in_situ"][k].get("host_speedup")
        if speedup:
            out += ["--host-range", rules[i + 1][:rules[i + 1].rindex("=")] + f"={speedup:.6g}"]
    return out


def in_situ_rules(rules, figures):
    """The same rules with the speedups the check found inside the program."""
    out, k = [], 0
    for i in range(0, len(rules), 2):
        flag, rule = rules[i], rules[i + 1]
        speedup = figures["in_situ"][k]["speedup"] if k < len(figures["in_situ"]) else None
        k += 1
        if speedup is None:
            return None
        out += [flag, rule[:rule.rindex("=")] + f"={speedup:.6g}"]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("headroom")
    ap.add_argument("out")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--reps", type=int, default=3, help="A/B processes per case (default 3)")
    ap.add_argument("--ab-cases", help="the cases whose A/B runs (default all; the others are traced and checked, "
                                       "with the A/B summaries OUT already holds)")
    ap.add_argument("--eval", action="store_true", help="judge the swap problems first, into OUT/swap.sqlite")
    ap.add_argument("--results", help="the results store with the swap problems' speedups (default OUT/swap.sqlite)")
    ap.add_argument("--budget", type=float, default=1e9, help="seconds: no case is started past it")
    ap.add_argument("--recheck", action="store_true",
                    help="run no workload: check again the traces and A/B summaries already in OUT (on any machine)")
    a = ap.parse_args()
    cases = [c for c in a.cases.split(",") if c]
    ab_cases = cases if a.ab_cases is None else [c for c in a.ab_cases.split(",") if c]
    for c in cases + ab_cases:
        if c not in CASES:
            ap.error(f"unknown case {c}: one of {', '.join(CASES)}")
    headroom = os.path.abspath(a.headroom)
    os.makedirs(a.out, exist_ok=True)
    results = os.path.abspath(a.results or os.path.join(a.out, "swap.sqlite"))
    t0 = time.time()
    os.environ["PYTHONUNBUFFERED"] = "1"

    if a.eval:
        cands = os.path.join(a.out, "candidates")
        shutil.rmtree(cands, ignore_errors=True)
        subprocess.run([sys.executable, "suites/swap/make_candidates.py", cands], cwd=ROOT, check=True)
        log = os.path.join(a.out, "eval.log")
        rc = sh([headroom, "eval", "suites/swap/problems", "--candidates", os.path.join(cands, "swap"),
                 os.path.join(cands, "swap-slow3"), "--db", results, "--no-compile-baseline", "--trials", "2",
                 "--max-time", "3", "--cache", os.path.join(a.out, "eval-cache")], log, 1200)
        print(f"headroom eval exit {rc} after {time.time() - t0:.0f} s", flush=True)
        sh([headroom, "stats", results], log, 60)
        shutil.rmtree(os.path.join(a.out, "eval-cache"), ignore_errors=True)

    rows = []
    for name in cases:
        script, args, swap, (steps, block), trace_steps, rules, source = CASES[name]
        row = {"case": name, "note": ""}
        rows.append(row)
        if time.time() - t0 > a.budget:
            row["note"] = "not run: budget spent"
            continue
        d = os.path.join(a.out, name)
        os.makedirs(d, exist_ok=True)
        log = os.path.join(d, "run.log")
        abs_ = []
        for r in range(a.reps):
            summary = os.path.join(d, f"ab{r + 1}.json")
            if a.recheck or name not in ab_cases:
                if os.path.exists(summary):
                    abs_.append(summary)
            elif sh(workload(script, args, swap, "--swap-ab", str(block), "--steps", str(steps), "--summary", summary),
                    log, 400) == 0:
                abs_.append(summary)
        row["ab"] = ab_figures(abs_)
        print(f"{name}: A/B {[round(x['gain'], 2) for x in row['ab']]} points ({time.time() - t0:.0f} s)", flush=True)
        for arm, file in (("off", "before.sqlite"), ("on", "after.sqlite")):
            if not a.recheck:
                sh([headroom, "profile", "-o", os.path.join(d, file), "--",
                    *workload(script, args, swap, "--swap-arm", arm, "--steps", str(trace_steps))], log, 400)
        if not (os.path.exists(os.path.join(d, "before.sqlite")) and os.path.exists(os.path.join(d, "after.sqlite"))):
            row["note"] = "traces missing (run.log)"
            continue
        figures = check(headroom, d, rules, results, source) if os.path.exists(results) else None
        if figures is None:
            # No measured speedups (yet): the check with speedups of 1 still measures the swap, audits
            # the route and finds the in-situ speedups, and the replay with those says how good the
            # projection is given the right speedup.
            row["note"] = "no eval speedups (check.log): the in-situ speedups alone"
            figures = check(headroom, d, [r.split("=@")[0] + "=1" if "=@" in r else r for r in rules], results, source,
                            "-unit")
            if figures is None:
                row["note"] = "check-swap failed (check.log)"
                continue
        else:
            row["check"] = figures
        situ = in_situ_rules(rules, figures)
        if situ:
            row["check_in_situ"] = check(headroom, d, situ, results, source, "-in-situ")
        host = host_rules(rules, figures)
        if host and row.get("check"):
            row["check_host"] = check(headroom, d, rules + host, results, source, "-host")
        if host and situ:
            row["check_in_situ_host"] = check(headroom, d, situ + host, results, source, "-in-situ-host")
        print(f"{name}: checked ({time.time() - t0:.0f} s)", flush=True)

    lines = ["| case | A/B gain, points: median (3 processes) | traces' gain | kernel speedups | Amdahl | replay | "
             "Amdahl error vs A/B, traces | replay error vs A/B, traces | operators' host ms per step | route audit |",
             "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- | --- |"]
    for row in rows:
        gains = sorted(x["gain"] for x in row.get("ab", []))
        ab = f"{statistics.median(gains):+.2f} ({', '.join(f'{g:+.2f}' for g in gains)})" if gains else ""
        c = row.get("check") or row.get("check_in_situ")
        if not c:
            lines.append(f"| {row['case']} | {ab} | | | | | | | | {row['note']} |")
            continue
        figures = [(kind, row[key]) for kind, key in (("eval", "check"), ("eval; host in situ", "check_host"),
                                                      ("in situ", "check_in_situ"),
                                                      ("in situ; host in situ", "check_in_situ_host")) if row.get(key)]
        for kind, f in figures:
            g, r = f["gain_points"], f["route"]
            speeds = ", ".join(f"{t['speedup']:.3f}x" for t in f["targets"])
            if f.get("host_rules"):
                speeds += "; host " + ", ".join(f"{h['speedup']:.3f}x" for h in f["host_rules"])
            speeds += f" ({kind})"
            host = "; ".join(f"{p['host_before_ms_per_step']:.2f} -> {p['host_after_ms_per_step']:.2f}"
                             for p in f.get("in_situ", []) if "host_before_ms_per_step" in p)
            err = lambda v: (f"{v - statistics.median(gains):+.2f}, " if gains else ", ") + f"{v - g['measured']:+.2f}"
            audit = f"{r['targeted']} targeted, {r['fallbacks']} fallbacks, {r['gone']} gone, {r['appeared']} new"
            lines.append(f"| {row['case']} | {ab} | {g['measured']:+.2f} | {speeds} | {g['amdahl']:+.2f} | "
                         f"{g['replay']:+.2f} | {err(g['amdahl'])} | {err(g['replay'])} | {host} | {audit} |")
    speed = []
    for row in rows:
        for n in (row.get("check") or {}).get("notes", []):
            if n.startswith("speedup from the results store"):
                speed.append(f"- {row['case']}: {n}")
    text = "\n".join(lines + [""] + speed) + "\n"
    with open(os.path.join(a.out, "summary.md"), "w") as f:
        f.write(text)
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print(text)


if __name__ == "__main__":
    main()
