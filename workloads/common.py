"""Shared harness for the reference workloads: run N steps, time each, optionally under a profiler.

Every workload module defines build(args) -> (step_fn, description) where step_fn() runs one step
(forward, backward and optimizer for training; forward for inference). The harness times each step
on the host after a device synchronisation, so a step's time is its wall clock as the user sees it.

Every timed step N runs inside an NVTX range "ProfilerStep#N" (when CUDA is available), the name
torch.profiler gives step N, so `headroom profile`'s trace carries the same step markers.

Profilers (--profile):
  none    plain run
  torch   torch.profiler, CUDA activity only (the cheapest setting), one trace of the active steps,
          written gzip'd as Kineto JSON (torch's own ProfilerStep#N markers reach the trace only
          with CPU activity, torch-cpu; CUDA-only traces of the H200 runs had none)
  torch-cpu  torch.profiler with CPU and CUDA activity (what most users record)
  torch-all  torch.profiler, CUDA activity only, recording every timed step (no schedule): the
          fair comparison with `headroom profile`, which also records every step

Overhead in one process (--ab K): the timed steps alternate between blocks of K steps unrecorded and
K steps recorded (in the order off, on, on, off, off, on, ..., so a drift cancels), so the comparison does not cross processes (separate runs of the same workload
differ by several percent on their own). The recorder is --ab-profiler:
  headroom  torch.cuda.profiler.start()/stop() (cudaProfilerStart/Stop) around the recorded blocks;
            run under `headroom profile --capture-range cudaProfilerApi`
  torch     a torch.profiler session (CUDA activity only) around each recorded block
The first step of every block is left out of both medians (it carries the switch), and one recorded
block runs during warm-up, so one-time start-up costs fall outside the timed steps. Before that
block, one block of K steps runs before anything was ever recorded: "ab_after_recording_pct" is the
unrecorded blocks' median against it, the cost a recorder leaves behind when it stops. The summary
gets "recorded" (per step), "ab_off_median_seconds", "ab_on_median_seconds", "ab_overhead_pct",
"ab_pristine_median_seconds", "ab_after_recording_pct", "host_seconds" (each timed step's time
until step() returned, before the synchronisation: near the step time, launches pace the step),
"threads" (the process's threads at the end, busiest first: CPU seconds, last CPU) and
"cpus_allowed".
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch


def parse_args(add_workload_args):
    p = argparse.ArgumentParser(description=sys.modules["__main__"].__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mode", choices=["train", "infer"], default="train")
    p.add_argument("--steps", type=int, default=20, help="timed steps after warm-up")
    p.add_argument("--warmup", type=int, default=5, help="untimed steps first (compilation, autotuning, caches)")
    p.add_argument("--profile", choices=["none", "torch", "torch-cpu", "torch-all"], default="none")
    p.add_argument("--active", type=int, default=5, help="steps recorded by torch.profiler")
    p.add_argument("--trace", default="trace.json.gz", help="where torch.profiler's trace goes")
    p.add_argument("--summary", default=None, help="write step times as JSON here")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ab", type=int, default=0, metavar="K",
                   help="alternate blocks of K unrecorded and K recorded timed steps (see the module's help)")
    p.add_argument("--ab-profiler", choices=["headroom", "torch", "none"], default="headroom",
                   help="none: the same blocks with nothing recorded (the control for the A/B's noise)")
    add_workload_args(p)
    return p.parse_args()


# Each timed step's host time: from its start until step() returned, before the synchronisation.
# Close to the step's wall clock, the step is host-bound (launches pace it, and a recorder's cost per
# launch lands on the wall clock); far below it, the device paces it.
_host_seconds = []


def timed_step(step, n):
    """Runs step n inside an NVTX range "ProfilerStep#n" (n None: no range, and its host time is not
    kept); its wall clock up to the device's end."""
    # headroom's trace records NVTX, not torch.profiler's markers: a range named as torch names
    # step N lets `headroom analyze` window it on the timed steps, as it windows torch's traces.
    # Warm-up steps stay unmarked, since torch's traces do not hold them either.
    nvtx = n is not None and torch.cuda.is_available()
    if nvtx:
        torch.cuda.nvtx.range_push(f"ProfilerStep#{n}")
    t0 = time.perf_counter()
    step()
    issued = time.perf_counter() - t0
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - t0
    if nvtx:
        torch.cuda.nvtx.range_pop()
    if n is not None:
        _host_seconds.append(issued)
    return elapsed



def run(build, add_workload_args=lambda p: None):
    args = parse_args(add_workload_args)
    torch.manual_seed(args.seed)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    step, description = build(args)

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    if args.ab > 0:
        return run_ab(args, step, description)

    times = []
    prof = None
    if args.profile != "none":
        activities = [torch.profiler.ProfilerActivity.CUDA]
        if args.profile == "torch-cpu":
            activities.append(torch.profiler.ProfilerActivity.CPU)
        if args.profile == "torch-all":
            # Every timed step recorded; the trace is exported after the loop, outside the timing.
            prof = torch.profiler.profile(activities=activities)
        else:
            # wait 1, warm-up 1, then the active steps: the warm-up step absorbs CUPTI's start-up.
            schedule = torch.profiler.schedule(wait=1, warmup=1, active=args.active, repeat=1)
            prof = torch.profiler.profile(activities=activities, schedule=schedule,
                                          on_trace_ready=lambda p: p.export_chrome_trace(args.trace))
        prof.start()
    for i in range(args.steps):
        times.append(timed_step(step, i))
        if prof is not None:
            prof.step()
    if prof is not None:
        prof.stop()
        if args.profile == "torch-all":
            prof.export_chrome_trace(args.trace)

    med = statistics.median(times)
    spread = (max(times) - min(times)) / med if med > 0 else 0.0
    print(f"{description}: mode={args.mode} profile={args.profile} steps={len(times)} "
          f"median={med * 1e3:.3f} ms spread={spread * 100:.1f}%")
    if args.summary:
        with open(args.summary, "w") as f:
            json.dump({"workload": description, "mode": args.mode, "profile": args.profile,
                       "step_seconds": times, "host_seconds": _host_seconds, "median_seconds": med,
                       "device": torch.cuda.get_device_name(), "torch": torch.__version__}, f, indent=1)


def thread_cpu():
    """This process's threads as /proc shows them: tid, name, CPU seconds (user + system) so far and
    the CPU each last ran on, busiest first. A recorder's threads (CUPTI's, the flush thread) that
    compete with the program's show here; so does a main thread that ran on a CPU shared with one."""
    tick = os.sysconf("SC_CLK_TCK")
    threads = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                text = f.read()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text[text.rindex(")") + 2:].split()  # fields[0] is the state, field 3 of stat
        threads.append({"tid": int(tid), "name": name, "cpu_seconds": (int(fields[11]) + int(fields[12])) / tick,
                        "last_cpu": int(fields[36])})
    return sorted(threads, key=lambda t: -t["cpu_seconds"])


class _Recorder:
    """Switches recording on and off between blocks of steps, in this process."""

    def __init__(self, kind):
        self.kind = kind
        self.prof = None
        if kind == "headroom" and os.environ.get("HEADROOM_PROFILE_CAPTURE") != "cudaProfilerApi":
            sys.exit("--ab-profiler headroom needs `headroom profile --capture-range cudaProfilerApi -- ...`")

    def on(self):
        if self.kind == "none":
            return
        if self.kind == "headroom":
            torch.cuda.profiler.start()
        else:
            self.prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA])
            self.prof.start()

    def off(self):
        if self.kind == "none":
            return
        if self.kind == "headroom":
            torch.cuda.profiler.stop()
        else:
            self.prof.stop()
            self.prof = None


def run_ab(args, step, description):
    recorder = _Recorder(args.ab_profiler)
    # One block before anything was ever recorded: a recorder that leaves the process slower after it
    # stops (CUPTI attached but idle) shows as "ab_after_recording_pct", the unrecorded blocks'
    # median against this one's.
    pristine = [timed_step(step, None) for _ in range(args.ab)][1:]
    # One recorded block during warm-up: CUPTI's and the recorder's start-up stay out of the timing.
    recorder.on()
    for _ in range(args.ab):
        step()
    torch.cuda.synchronize()
    recorder.off()
    times, recorded = [], []
    _host_seconds.clear()
    # Blocks in the order off, on, on, off, off, on, ...: a steady drift of step times (clocks,
    # temperature, allocator state) falls on both sides alike instead of favouring the later one.
    blocks = max(4, 4 * round(args.steps / (4 * args.ab)))
    for b in range(blocks):
        on = b % 4 in (1, 2)
        if on:
            recorder.on()
        for i in range(args.ab):
            times.append(timed_step(step, len(times)))
            recorded.append(on)
        if on:
            recorder.off()
    settled = lambda want: [t for k, (t, r) in enumerate(zip(times, recorded)) if r == want and k % args.ab != 0]
    off, on = statistics.median(settled(False)), statistics.median(settled(True))
    pct = 100 * (on - off) / off
    before = statistics.median(pristine) if pristine else off
    after_pct = 100 * (off - before) / before
    host = statistics.median(_host_seconds)
    print(f"{description}: mode={args.mode} ab={args.ab} profiler={args.ab_profiler} blocks={blocks} "
          f"off={off * 1e3:.3f} ms on={on * 1e3:.3f} ms overhead={pct:+.2f}% "
          f"before-any-recording={before * 1e3:.3f} ms after-recording={after_pct:+.2f}% host={host * 1e3:.3f} ms")
    if args.summary:
        with open(args.summary, "w") as f:
            json.dump({"workload": description, "mode": args.mode, "profile": f"ab-{args.ab_profiler}",
                       "step_seconds": times, "recorded": recorded, "ab_block": args.ab,
                       "host_seconds": _host_seconds, "pristine_step_seconds": pristine,
                       "ab_off_median_seconds": off, "ab_on_median_seconds": on, "ab_overhead_pct": pct,
                       "ab_pristine_median_seconds": before, "ab_after_recording_pct": after_pct,
                       "threads": thread_cpu(), "cpus_allowed": sorted(os.sched_getaffinity(0)),
                       "device": torch.cuda.get_device_name(), "torch": torch.__version__}, f, indent=1)
