"""Every reference workload's tiny preset on the CPU: a step runs, a ProfilerStep#N range is opened
around every timed step and only around them, and the scripts' options work (modes, sizes, steps,
bad input refused with exit status 2). Run by ctest with the Python that has PyTorch (Debian's
python3-torch in CI); exits 77 (skipped) where PyTorch is missing.

  python3 tests/workloads/tiny_presets.py workloads/
"""
import gzip
import json
import os
import re
import subprocess
import sys

try:
    import torch
except ImportError:
    print("no PyTorch in this Python: skipped")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Harness  # noqa: E402

h = Harness(sys.argv[1], "headroom-workloads-")
HERE, TMP, check, run, expect_usage_error = h.workloads, h.tmp, h.check, h.run, h.expect_usage_error
# The default step marker pattern of `headroom analyze` (include/headroom/analyze/analysis.hpp).
STEP_MARKER = re.compile(r"^(ProfilerStep#\d+|[Ss]tep[ _#:]?\d+|[Ii]teration[ _#:]?\d+)$")
MODES = {"gpt.py": ("train", "infer"), "llama.py": ("infer",), "bert.py": ("infer",), "dlrm.py": ("train", "infer"),
         "dlrmv2.py": ("train", "infer"), "hstu.py": ("train", "infer"), "resnet50.py": ("train", "infer"),
         "vit.py": ("infer",)}


# Every script and mode: two timed steps after one warm-up step.
for script, modes in MODES.items():
    for mode in modes:
        what = f"{script} --mode {mode}"
        s = run(script, "--mode", mode, "--steps", "2", "--warmup", "1")
        if "exit" in s:
            check(False, f"{what}: exited {s['exit']}: {s['stderr'][-2000:]}")
            continue
        check(s["preset"] == "tiny" and s["device_type"] == "cpu" and s["mode"] == mode, f"{what}: preset, device, mode")
        check(len(s["step_seconds"]) == 2 and all(t > 0 for t in s["step_seconds"]), f"{what}: two timed steps")
        names = [m["name"] for m in s["step_markers"]]
        check(names == ["ProfilerStep#0", "ProfilerStep#1"], f"{what}: step markers {names}")
        check(all(STEP_MARKER.match(n) for n in names), f"{what}: marker names that analyze does not take for steps")
        spans = [(m["start_s"], m["end_s"]) for m in s["step_markers"]]
        check(all(a < b for a, b in spans) and spans[0][1] <= spans[1][0], f"{what}: marker spans {spans}")
        check(s["step_marker_api"] == "none", f"{what}: no CUDA, so no NVTX")
        check(s["warmup"] == 1 and s["warmup_seconds"] > 0, f"{what}: warm-up")
    for mode in {"train", "infer"} - set(modes):
        expect_usage_error(script, ["--mode", mode], "invalid choice")

# HSTU's attention as one fused kernel (the study's hstu_train_fused): a training step and a
# different attention than the pointwise one, on the same weights and batch.
s = run("hstu.py", "--mode", "train", "--attention", "fused", "--steps", "2", "--warmup", "1")
check("exit" not in s and len(s.get("step_seconds", [])) == 2, f"hstu.py --attention fused: {s.get('stderr', '')[-2000:]}")
check("fused attention" in s.get("workload", ""), f"hstu.py --attention fused: {s.get('workload')}")
expect_usage_error("hstu.py", ["--attention", "flash"], "invalid choice")

# A size on the command line overrides the preset's; --steps the preset's steps.
s = run("gpt.py", "--layers", "1", "--d-model", "32", "--steps", "1", "--warmup", "0")
check("L1 d32" in s.get("workload", ""), f"gpt.py --layers 1 --d-model 32: {s.get('workload')}")
check(len(s.get("step_seconds", [])) == 1 and s.get("warmup_seconds", 1) < 1, "gpt.py --steps 1 --warmup 0")
s = run("llama.py", "--kv-heads", "4", "--context", "8", "--steps", "1")
check("heads 4/4" in s.get("workload", "") and "context8" in s.get("workload", ""), f"llama.py sizes: {s.get('workload')}")

# torch.profiler through the harness: a Kineto trace whose steps carry torch's own ProfilerStep#N.
trace = os.path.join(TMP, "gpt.json.gz")
s = run("gpt.py", "--steps", "4", "--active", "2", "--profile", "torch-cpu", "--trace", trace)
with gzip.open(trace, "rt") as f:
    data = json.load(f)
# Kineto writes {"traceEvents": [...]}; a PyTorch built without Kineto (Debian's) the bare array.
events = data["traceEvents"] if isinstance(data, dict) else data
steps = sorted({e["name"] for e in events if e.get("name", "").startswith("ProfilerStep#")})
# Two active steps after one waited and one warmed up (their numbers differ between PyTorch versions).
check(len(steps) == 2 and all(STEP_MARKER.match(n) for n in steps), f"--profile torch-cpu: steps {steps} in the trace")

# Bad input: exit status 2 and a message that names the problem.
expect_usage_error("gpt.py", ["--steps", "0"], "--steps must be at least 1")
expect_usage_error("gpt.py", ["--profile", "torch-all"], "on the CPU use --profile torch-cpu")
expect_usage_error("llama.py", ["--heads", "4", "--kv-heads", "3"], "multiple of --kv-heads")
expect_usage_error("bert.py", ["--seq", "600"], "512 positions")
expect_usage_error("hstu.py", ["--min-len", "1"], "--min-len must be at least 2")
expect_usage_error("vit.py", ["--image", "30"], "multiple of --patch")
expect_usage_error("dlrm.py", ["--preset", "a100"], "invalid choice")
if not torch.cuda.is_available():
    expect_usage_error("dlrm.py", ["--device", "cuda"], "sees no CUDA device")
if not hasattr(torch, "compile"):
    expect_usage_error("gpt.py", ["--compile"], "needs torch.compile (PyTorch 2.0 or later)")

# The scripts as a user runs them: a process of its own, the tiny preset chosen without a GPU.
summary = os.path.join(TMP, "vit.json")
p = subprocess.run([sys.executable, os.path.join(HERE, "vit.py"), "--steps", "1", "--warmup", "0", "--summary", summary],
                   capture_output=True, text=True, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
check(p.returncode == 0 and "mode=infer" in p.stdout, f"vit.py in a process: {p.returncode} {p.stdout} {p.stderr[-2000:]}")
if p.returncode == 0:
    with open(summary) as f:
        check(json.load(f)["preset"] == "tiny", "vit.py without CUDA: the tiny preset by default")

h.finish()
