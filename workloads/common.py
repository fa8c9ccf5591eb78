"""Shared harness for the reference workloads: run N steps, time each, optionally under a profiler.

Every workload module defines build(args) -> (step_fn, description) where step_fn() runs one step
(forward, backward and optimizer for training; forward for inference), and calls
run(build, add_args, PRESETS, modes). The harness times each step on the host after a device
synchronisation, so a step's time is its wall clock as the user sees it.

Sizes (--preset): every workload has a "large" preset (the sizes the study measures: each run well
inside one 80 GB GPU and well under a minute with torch.compile's warm-up) and a "tiny" one (seconds
on a CPU with Debian's PyTorch, for CI). The transformers (gpt.py, bert.py, llama.py) also have
"small", "medium" and "xl": the same program at other model sizes, for the study's scale sweep
(bench/study_scale.py). The default is large where CUDA is available and tiny elsewhere; a size
given on the command line overrides the preset's. --device picks cuda or cpu (default: cuda when
available).

torch.compile (--compile): each workload compiles its regions (--compile-scope regions, the
default): a transformer's repeated blocks one by one (PyTorch's regional compilation, which compiles
one block and reuses it for the others, so warm-up stays short), a recommender's dense part (the
embedding tables stay eager, as TorchRec keeps them in FBGEMM). --compile-scope model compiles the
whole model instead.

Every timed step N runs inside an NVTX range "ProfilerStep#N" (when running on CUDA), the name
torch.profiler gives step N, so `headroom profile`'s trace carries the same step markers; warm-up
steps stay unmarked. The summary lists each range the harness opened ("step_markers", with host
times from the start of the first timed step), and says whether it went to NVTX
("step_marker_api": "nvtx") or had nowhere to go ("none": no CUDA).

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
import contextlib
import json
import os
import statistics
import sys
import time

import torch

import swap

_parser = None
_device = "cpu"


def fail(message):
    """A usage error: the message on stderr and exit status 2, as argparse does."""
    _parser.error(message)


def parse_args(add_workload_args, presets, modes, swaps=()):
    global _parser
    p = argparse.ArgumentParser(description=sys.modules["__main__"].__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    _parser = p
    p.add_argument("--mode", choices=list(modes), default=modes[0])
    p.add_argument("--preset", choices=sorted(presets), default=None,
                   help="sizes: large (the study's; the default with CUDA), tiny (seconds on a CPU; the default "
                        "without), small/medium/xl where the workload has them (the scale sweep)")
    p.add_argument("--device", choices=["cuda", "cpu"], default=None, help="default: cuda when available")
    p.add_argument("--compile", action="store_true", help="torch.compile (Inductor, Triton kernels); see --compile-scope")
    p.add_argument("--compile-scope", choices=["regions", "model"], default="regions",
                   help="regions: the workload's repeated blocks or dense part, one by one; model: the whole model")
    p.add_argument("--steps", type=int, default=None, help="timed steps after warm-up (default: the preset's)")
    p.add_argument("--warmup", type=int, default=None,
                   help="untimed steps first (compilation, autotuning, caches; default: the preset's)")
    p.add_argument("--profile", choices=["none", "torch", "torch-cpu", "torch-all"], default="none")
    p.add_argument("--active", type=int, default=5, help="steps recorded by torch.profiler")
    p.add_argument("--trace", default="trace.json.gz", help="where torch.profiler's trace goes")
    p.add_argument("--summary", default=None, help="write step times as JSON here")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ab", type=int, default=0, metavar="K",
                   help="alternate blocks of K unrecorded and K recorded timed steps (see the module's help)")
    p.add_argument("--ab-profiler", choices=["headroom", "torch", "none"], default="headroom",
                   help="none: the same blocks with nothing recorded (the control for the A/B's noise)")
    p.add_argument("--swap", default="",
                   help=f"kernel families to swap for ours, comma-separated ({', '.join(swaps) or 'none in this workload'}; "
                        "swap.py says what each replaces)")
    p.add_argument("--swap-arm", choices=["on", "off"], default="on",
                   help="with --swap: on runs our kernels, off PyTorch's on the same code path (the program before the swap)")
    p.add_argument("--swap-ab", type=int, default=0, metavar="K",
                   help="with --swap: alternate blocks of K timed steps with the swap off and on, in this process")
    p.add_argument("--slow-factor", type=int, default=3, help="--swap gelu-slow: how many times each pass repeats (default 3)")
    add_workload_args(p)
    args = p.parse_args()
    args.swap = [s for s in args.swap.split(",") if s]
    for name in args.swap:
        if name not in swaps:
            fail(f"--swap {name}: this workload swaps {', '.join(swaps) or 'nothing'}")
    if "gelu" in args.swap and "gelu-slow" in args.swap:
        fail("--swap gelu and gelu-slow replace the same kernels: one or the other")
    if args.swap_ab < 0 or args.swap_ab == 1 or (args.swap_ab and not args.swap):
        fail("--swap-ab K needs K >= 2 (a block's first step carries the switch and is left out) and --swap")
    if args.swap_ab and args.ab:
        fail("--swap-ab and --ab are two in-process A/B comparisons: one at a time")
    if args.slow_factor < 1:
        fail("--slow-factor must be at least 1")
    if args.device is None:
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    elif args.device == "cuda" and not torch.cuda.is_available():
        fail(f"--device cuda: this PyTorch ({torch.__version__}) sees no CUDA device")
    if args.preset is None:
        args.preset = "large" if args.device == "cuda" else "tiny"
    # A preset's value may depend on the mode: {"train": 60, "infer": 200}.
    for key, value in {"steps": 20, "warmup": 5, **presets[args.preset]}.items():
        if getattr(args, key, None) is None:
            setattr(args, key, value[args.mode] if isinstance(value, dict) else value)
    if args.steps < 1 or args.warmup < 0:
        fail("--steps must be at least 1 and --warmup at least 0")
    if args.compile and not hasattr(torch, "compile"):
        fail(f"--compile needs torch.compile (PyTorch 2.0 or later); this is PyTorch {torch.__version__}")
    if args.profile in ("torch", "torch-all") and args.device != "cuda":
        fail(f"--profile {args.profile} records CUDA activity only; on the CPU use --profile torch-cpu")
    if args.profile == "torch" and args.steps < args.active + 2:
        fail(f"--profile torch records {args.active} steps after 2 more: give --steps {args.active + 2} or more")
    return args


def synchronize():
    if _device == "cuda":
        torch.cuda.synchronize()


def autocast(args):
    """bf16 autocast on the GPU; on the CPU preset fp32 (Debian's CPU PyTorch, where bf16 is slow
    and not what is measured)."""
    if args.device == "cuda":
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def low_precision(args):
    """The dtype of inference weights: bf16 on the GPU, fp32 on the CPU preset."""
    return torch.bfloat16 if args.device == "cuda" else torch.float32


def compile_regions(args, model, regions=None):
    """With --compile: torch.compile every module of `regions` in place (a list of (container,
    index-or-name) pairs; None: the whole model is the region), or the whole model with
    --compile-scope model. Returns the model to call."""
    if not args.compile:
        return model
    if regions is None or args.compile_scope == "model":
        return torch.compile(model)
    # Blocks of one class share compiled code only when module attributes are graph inputs rather
    # than constants guarded by identity (the default since PyTorch 2.5; set for older 2.x).
    config = getattr(torch, "_dynamo").config
    if hasattr(config, "inline_inbuilt_nn_modules"):
        config.inline_inbuilt_nn_modules = True
    for container, key in regions:
        if isinstance(key, int):
            container[key] = torch.compile(container[key])
        else:
            setattr(container, key, torch.compile(getattr(container, key)))
    return model


def backward_and_step(loss, *optimizers):
    """The end of a training step: backward, every optimizer's step, then the gradients freed."""
    loss.backward()
    for opt in optimizers:
        opt.step()
    for opt in optimizers:
        opt.zero_grad(set_to_none=True)


# Each timed step's host time: from its start until step() returned, before the synchronisation.
# Close to the step's wall clock, the step is host-bound (launches pace it, and a recorder's cost per
# launch lands on the wall clock); far below it, the device paces it.
_host_seconds = []
# The ProfilerStep#N ranges opened: name, start and end in host seconds from the first timed step.
_markers = []
_markers_origin = None


def timed_step(step, n):
    """Runs step n inside an NVTX range "ProfilerStep#n" (n None: no range, and its host time is not
    kept); its wall clock up to the device's end."""
    global _markers_origin
    # headroom's trace records NVTX, not torch.profiler's markers: a range named as torch names
    # step N lets `headroom analyze` window it on the timed steps, as it windows torch's traces.
    # Warm-up steps stay unmarked, since torch's traces do not hold them either.
    nvtx = n is not None and _device == "cuda"
    name = f"ProfilerStep#{n}"
    if nvtx:
        torch.cuda.nvtx.range_push(name)
    t0 = time.perf_counter()
    step()
    issued = time.perf_counter() - t0
    synchronize()
    t1 = time.perf_counter()
    if nvtx:
        torch.cuda.nvtx.range_pop()
    if n is not None:
        _host_seconds.append(issued)
        _markers_origin = t0 if _markers_origin is None else _markers_origin
        _markers.append({"name": name, "start_s": t0 - _markers_origin, "end_s": t1 - _markers_origin})
    return t1 - t0


def _device_name():
    return torch.cuda.get_device_name() if _device == "cuda" else "cpu"


def write_summary(args, fields):
    """The run's JSON summary (--summary), written whole or not at all."""
    if not args.summary:
        return
    common = {"preset": args.preset, "device_type": args.device, "compile": args.compile,
              "compile_scope": args.compile_scope if args.compile else None, "warmup": args.warmup,
              "warmup_seconds": _warmup_seconds, "step_markers": _markers,
              "step_marker_api": "nvtx" if _device == "cuda" else "none",
              "device": _device_name(), "torch": torch.__version__, "args": vars(args)}
    partial = args.summary + ".partial"
    with open(partial, "w") as f:
        json.dump({**fields, **common}, f, indent=1)
    os.replace(partial, args.summary)


_warmup_seconds = None


def run(build, add_workload_args, presets, modes=("train", "infer"), swaps=()):
    global _device, _warmup_seconds, _markers_origin
    args = parse_args(add_workload_args, presets, modes, swaps)
    _device = args.device
    swap.configure(args.swap, args.slow_factor, args.device)  # none named: every swap off
    swap.set_arm(bool(args.swap) and args.swap_arm == "on" and not args.swap_ab)
    _host_seconds.clear()
    _markers.clear()
    _markers_origin = None
    torch.manual_seed(args.seed)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    step, description = build(args)

    t0 = time.perf_counter()
    for _ in range(args.warmup):
        step()
    synchronize()
    _warmup_seconds = time.perf_counter() - t0
    if args.ab > 0:
        return run_ab(args, step, description, args.ab, _Recorder(args.ab_profiler), f"ab-{args.ab_profiler}")
    if args.swap_ab > 0:
        return run_ab(args, step, description, args.swap_ab, _SwapArm(), "ab-swap")

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
          f"median={med * 1e3:.3f} ms spread={spread * 100:.1f}% warm-up={_warmup_seconds:.1f} s")
    write_summary(args, {"workload": description, "mode": args.mode, "profile": args.profile,
                         "step_seconds": times, "host_seconds": _host_seconds, "median_seconds": med,
                         "swap": args.swap, "swap_arm": args.swap_arm if args.swap else None})


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


class _SwapArm:
    """Switches a swap's arm between blocks of steps (--swap-ab): on, our kernels; off, PyTorch's."""

    def on(self):
        swap.set_arm(True)

    def off(self):
        swap.set_arm(False)


def run_ab(args, step, description, k, recorder, label):
    """Blocks of k timed steps with `recorder` off and on (a profiler, or a swap's arm). For a swap,
    "ab_overhead_pct" is the step time's change with the swap on: its gain in points is minus that."""
    # One block before anything was ever recorded: a recorder that leaves the process slower after it
    # stops (CUPTI attached but idle) shows as "ab_after_recording_pct", the unrecorded blocks'
    # median against this one's.
    pristine = [timed_step(step, None) for _ in range(k)][1:]
    # One recorded block during warm-up: CUPTI's and the recorder's start-up stay out of the timing.
    recorder.on()
    for _ in range(k):
        step()
    synchronize()
    recorder.off()
    times, recorded = [], []
    _host_seconds.clear()
    # Blocks in the order off, on, on, off, off, on, ...: a steady drift of step times (clocks,
    # temperature, allocator state) falls on both sides alike instead of favouring the later one.
    blocks = max(4, 4 * round(args.steps / (4 * k)))
    for b in range(blocks):
        on = b % 4 in (1, 2)
        if on:
            recorder.on()
        for i in range(k):
            times.append(timed_step(step, len(times)))
            recorded.append(on)
        if on:
            recorder.off()
    settled = lambda want: [t for i, (t, r) in enumerate(zip(times, recorded)) if r == want and i % k != 0]
    off, on = statistics.median(settled(False)), statistics.median(settled(True))
    pct = 100 * (on - off) / off
    before = statistics.median(pristine) if pristine else off
    after_pct = 100 * (off - before) / before
    host = statistics.median(_host_seconds)
    print(f"{description}: mode={args.mode} ab={k} {label} blocks={blocks} "
          f"off={off * 1e3:.3f} ms on={on * 1e3:.3f} ms overhead={pct:+.2f}% "
          f"before-any-recording={before * 1e3:.3f} ms after-recording={after_pct:+.2f}% host={host * 1e3:.3f} ms")
    write_summary(args, {"workload": description, "mode": args.mode, "profile": label, "swap": args.swap,
                         "step_seconds": times, "recorded": recorded, "ab_block": k,
                         "host_seconds": _host_seconds, "pristine_step_seconds": pristine,
                         "ab_off_median_seconds": off, "ab_on_median_seconds": on, "ab_overhead_pct": pct,
                         "ab_pristine_median_seconds": before, "ab_after_recording_pct": after_pct,
                         "threads": thread_cpu(), "cpus_allowed": sorted(os.sched_getaffinity(0))})
