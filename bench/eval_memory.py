#!/usr/bin/env python3
"""Peak memory of `headroom eval` against a problem's bytes: the parent's and its workers'.

    bench/eval_memory.py HEADROOM [--gib 1 4] [--label NAME] [--before OLD_HEADROOM [--before-gib ...]]
                         [-- EVAL_ARGS...]

For each size a Frobenius-norm problem (one float32 input of that many GiB, one output of the same
size: KernelBench's 37_FrobeniusNorm_ scaled) is written to a temporary folder and evaluated with
its own Model as the candidate on the CPU, while this script samples, every 0.1 s, each process of
the run: the parent (`headroom eval`), the reference worker(s) (its unsandboxed children) and the
candidate's worker (inside headroom-sandbox). Per process it reads /proc/PID/status (RssAnon,
RssShmem, VmHWM); the payload regions (memfds) are counted once, by the blocks each holds, through
the descriptors of every process of the run. Prints one Markdown row per size: the parent's peak
(VmHWM, and anonymous memory alone), the largest sum over the workers' anonymous memory, the regions'
largest total, the run's largest total (parent + workers + regions at one sample) and the verdict.
With --before, each size is measured with OLD_HEADROOM (another build, e.g. the one before a change:
its rows are labelled `before`) right after HEADROOM (labelled `after`, or --label), at the sizes of
--before-gib (default: those of --gib), so that a run cut short still holds pairs.

A run whose total passes --cap-gib (default 85% of MemAvailable when it starts) is stopped (its
row says so), so that the kernel's out-of-memory killer never has to choose a victim on a shared
machine. Run one at a time: never two of these at once. Ended by SIGTERM (a time limit), it ends
the run under way (which runs in a process group of its own) before it exits.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PROBLEM = """import torch
import torch.nn as nn


class Model(nn.Module):
    \"\"\"x / ||x||_F over one tensor of {gib} GiB (KernelBench's 37_FrobeniusNorm_, scaled).\"\"\"

    def forward(self, x):
        return x / torch.norm(x, p="fro")


def get_inputs():
    return [torch.randn({elements})]


def get_init_inputs():
    return []
"""


def status(pid):
    fields = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmHWM", "RssAnon", "RssShmem", "Name"):
                    fields[key] = value.strip()
    except OSError:
        return None
    return fields


def kib(text):
    return int(text.split()[0]) if text else 0


def children(pid):
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def tree(root):
    """(pid, depth-role) for every process below root: 'reference' for unsandboxed workers,
    'candidate' for a worker inside a sandbox, 'sandbox' for its supervisor and init."""
    found = []
    stack = [(root, "parent")]
    while stack:
        pid, role = stack.pop()
        found.append((pid, role))
        for c in children(pid):
            s = status(c)
            if not s:
                continue
            name = s.get("Name", "")
            if role == "parent":
                r = "sandbox" if name.startswith("headroom-sandb") else "reference"
            else:
                r = "candidate" if name.startswith("headroom-work") else "sandbox"
            stack.append((c, r))
    return found


def region_blocks(pids):
    """Bytes held by the memfds the processes have open, each counted once."""
    seen = {}
    for pid in pids:
        try:
            names = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for n in names:
            path = f"/proc/{pid}/fd/{n}"
            try:
                if not os.readlink(path).startswith("/memfd:"):
                    continue
                st = os.stat(path)
            except OSError:
                continue
            seen[(st.st_dev, st.st_ino)] = st.st_blocks * 512
    return sum(seen.values())


def measure(headroom, problem, work, eval_args, cap):
    cmd = [headroom, "eval", problem, "--reference-as-candidate", "--device", "cpu", "--force",
           "--db", os.path.join(work, "r.sqlite"), "--cache", os.path.join(work, "cache")] + eval_args
    began = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)

    def end_run(signum, frame):
        # The run is a session of its own: a limit that ends this script would not reach it.
        os.killpg(proc.pid, signal.SIGKILL)
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, end_run)
    aborted = False
    peak = {"parent_hwm": 0, "parent_anon": 0, "workers_anon": 0, "reference_anon": 0, "candidate_anon": 0,
            "regions": 0, "total": 0}
    while proc.poll() is None:
        procs = tree(proc.pid)
        anon = {"parent": 0, "reference": 0, "candidate": 0, "sandbox": 0}
        for pid, role in procs:
            s = status(pid)
            if not s:
                continue
            anon[role] += kib(s.get("RssAnon")) * 1024
            if role == "parent":
                peak["parent_hwm"] = max(peak["parent_hwm"], kib(s.get("VmHWM")) * 1024)
        regions = region_blocks([p for p, _ in procs])
        workers = anon["reference"] + anon["candidate"] + anon["sandbox"]
        peak["parent_anon"] = max(peak["parent_anon"], anon["parent"])
        peak["reference_anon"] = max(peak["reference_anon"], anon["reference"])
        peak["candidate_anon"] = max(peak["candidate_anon"], anon["candidate"])
        peak["workers_anon"] = max(peak["workers_anon"], workers)
        peak["regions"] = max(peak["regions"], regions)
        peak["total"] = max(peak["total"], anon["parent"] + workers + regions)
        if peak["total"] > cap and not aborted:
            # This machine is shared: a run that outgrows the cap is stopped before the kernel's
            # out-of-memory killer picks a victim.
            os.killpg(proc.pid, 9)
            aborted = True
        time.sleep(0.1)
    out, err = proc.communicate()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    seconds = time.monotonic() - began
    verdict = "exit %d" % proc.returncode
    for line in err.splitlines():
        m = re.match(r"\[\d+/\d+\] \S+\s+\S+\s+(\S+)\s+(\S+)", line)
        if m:
            verdict = m.group(1) + (" " + m.group(2) if m.group(2) != "-" else "")
    reason = ""
    for line in out.splitlines():
        if "reference_error" in line or "timing_sets_reduced" in line:
            reason = line.split("  ")[-1].strip()[:90]
    if proc.returncode != 0:
        reason = err.strip().splitlines()[-1][:120] if err.strip() else ""
    if aborted:
        verdict, reason = "stopped", f"the run passed the cap of {cap / (1 << 30):.1f} GiB"
    return peak, seconds, verdict, reason


def mem_available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def row(headroom, label, size, eval_args, a):
    """One run of HEADROOM on a problem of `size` GiB in and out, as a Markdown row."""
    gib = 1 << 30
    cap = a.cap_gib * gib if a.cap_gib > 0 else 0.85 * mem_available()
    work = tempfile.mkdtemp(prefix="headroom-memory-")
    try:
        folder = os.path.join(work, "problems")
        os.mkdir(folder)
        path = os.path.join(folder, f"frobenius_{size:g}gib.py")
        with open(path, "w") as f:
            f.write(PROBLEM.format(gib=size, elements=int(size * gib) // 4))
        peak, seconds, verdict, reason = measure(headroom, path, work, eval_args, cap)
    finally:
        if a.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return (f"| {label} | {size:g} + {size:g} | {peak['parent_hwm'] / gib:.2f} / {peak['parent_anon'] / gib:.2f} "
            f"| {peak['reference_anon'] / gib:.2f} / {peak['candidate_anon'] / gib:.2f} / "
            f"{peak['workers_anon'] / gib:.2f} | {peak['regions'] / gib:.2f} | {peak['total'] / gib:.2f} "
            f"| {seconds:.0f} | {verdict} | {reason} | {os.getloadavg()[0]:.1f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("headroom")
    ap.add_argument("--gib", type=float, nargs="+", default=[1, 4])
    ap.add_argument("--label", default="")
    ap.add_argument("--before", default="", help="another headroom binary measured after HEADROOM at each size")
    ap.add_argument("--before-gib", type=float, nargs="*", default=None,
                    help="the sizes measured with --before (default: --gib)")
    ap.add_argument("--keep", action="store_true", help="keep each run's folder (worker logs; print its path)")
    ap.add_argument("--cap-gib", type=float, default=0,
                    help="stop a run whose total passes this (default: 85%% of MemAvailable at its start)")
    argv = sys.argv[1:]
    eval_args = argv[argv.index("--") + 1:] if "--" in argv else []
    a = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    print("| build | problem GiB (in + out) | parent peak GiB (VmHWM / anon) | workers' anon GiB (ref / cand / sum) "
          "| regions GiB | run total GiB | s | verdict | reason | load |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |")
    builds = [(a.headroom, a.label or ("after" if a.before else ""), a.gib)]
    if a.before:
        builds.append((a.before, "before", a.gib if a.before_gib is None else a.before_gib))
    for size in sorted(set().union(*(sizes for _, _, sizes in builds))):
        for headroom, label, sizes in builds:
            if size in sizes:
                print(row(headroom, label, size, eval_args, a), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
