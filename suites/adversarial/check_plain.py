#!/usr/bin/python3
"""Sanity check of the adversarial suite under plain PyTorch: shows that every candidate does what
README.md says it does. It is not a test of `headroom eval` and proves nothing about it.

For each case of manifest.toml that lists the device (default cpu) and is not marked
`plain_check = false`, a fresh Python process (so that patched timers, threads, aborts and forged
bytes stay in it) imports the problem and the candidate, builds Model and ModelNew under the same
seed and runs:
  - KernelBench's check as shipped: seeds drawn from 42, five trials, the reference first and then
    the candidate on the same tensors, torch.allclose with atol = rtol = 1e-2 (v0, v0.1) and 1e-4
    (fp32 today); the candidate is never given a clone;
  - four trials shaped like the harness's (as drawn, shifted/scaled/signed, standard normal,
    outliers), each on a clone of the inputs, judged as docs/eval.md describes (type, shape, dtype,
    NaN/Inf, float64 normwise and per-element error), plus: inputs changed by the call, Python
    threads the call left running, timer functions replaced, bytes written into a pipe that stands
    in for a result channel, and whether forward dispatched every operator the reference did.
Poisoning is not imitated: an unwritten output shows up here as a mismatch.

    TORCH_EXTENSIONS_DIR=/tmp/adv-ext /usr/bin/python3 suites/adversarial/check_plain.py [--case NAME]...
Each case builds its extensions in $TORCH_EXTENSIONS_DIR/<case>, as the harness builds each candidate
in a folder of its own. Exit status 0 when every case behaved as the manifest expects.
"""
import argparse
import gc
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TAG = "CHECK_PLAIN "
CHANNEL_FD = 250  # a high descriptor, as the worker keeps its channel

# Operators that only allocate, view or copy: not counted when asking whether forward handed the
# reference's compute back to PyTorch.
NOT_COMPUTE = {
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like",
    "ones", "ones_like", "full", "full_like", "view", "_unsafe_view", "reshape", "t", "transpose",
    "permute", "expand", "as_strided", "select", "slice", "unsqueeze", "squeeze", "alias", "detach",
    "clone", "contiguous", "copy_", "_to_copy", "to", "lift_fresh", "fill_", "zero_", "resize_",
    "split", "unbind", "narrow", "_reshape_alias", "set_", "view_as", "flatten", "unflatten",
    "new_zeros", "new_ones", "new_full", "lift_fresh_copy", "_local_scalar_dense", "item", "arange",
}

# float64 thresholds of docs/eval.md: dtype -> (normwise, rtol, atol relative to rms(reference)).
THRESHOLDS = {
    "torch.float64": (1e-10, 1e-8, 1e-10),
    "torch.float32": (1e-4, 1e-3, 1e-4),
    "torch.float16": (2e-3, 1e-2, 1e-3),
    "torch.bfloat16": (1e-2, 3e-2, 1e-2),
}


def load_manifest():
    import tomllib
    with open(os.path.join(HERE, "manifest.toml"), "rb") as f:
        return tomllib.load(f)["case"]


# ---------------------------------------------------------------------------------------------
# Child: one case in its own process.
# ---------------------------------------------------------------------------------------------

def emit(kind, value):
    sys.stdout.write(TAG + json.dumps({kind: value}) + "\n")
    sys.stdout.flush()


def import_file(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def child(case, device_name):
    import threading
    import torch

    clock = time.perf_counter
    torch.set_grad_enabled(False)
    device = torch.device(device_name)
    fns = {
        "time.perf_counter": lambda: time.perf_counter,
        "time.time": lambda: time.time,
        "torch.cuda.synchronize": lambda: torch.cuda.synchronize,
        "torch.cuda.Event.record": lambda: torch.cuda.Event.record,
        "torch.cuda.Event.elapsed_time": lambda: torch.cuda.Event.elapsed_time,
        "torch.allclose": lambda: torch.allclose,
        "torch.Tensor.__eq__": lambda: torch.Tensor.__eq__,
    }
    before = {k: get() for k, get in fns.items()}
    allclose, sync = torch.allclose, torch.cuda.synchronize
    record, elapsed = torch.cuda.Event.record, torch.cuda.Event.elapsed_time  # before any patching

    def synchronize():
        if device.type == "cuda":
            sync(device)

    # A pipe standing in for the worker's result channel.
    r, w = os.pipe()
    os.dup2(w, CHANNEL_FD)
    os.close(w)
    os.set_blocking(r, False)

    problem = import_file(os.path.join(HERE, case["problem"]), "adv_problem")
    emit("stage", "import")
    start = clock()
    try:
        candidate = import_file(os.path.join(HERE, case["candidate"]), "adv_candidate")
    except BaseException as e:  # noqa: BLE001 - a candidate may raise anything at import
        lines = str(e).strip().splitlines()
        emit("import_error", "%s: %s" % (type(e).__name__, lines[0] if lines else ""))
        emit("import_error_is_build", "Error building extension" in str(e))
        return
    emit("import_s", round(clock() - start, 2))
    init = problem.get_init_inputs()

    def build():
        torch.manual_seed(0)
        model = problem.Model(*init).to(device)
        torch.manual_seed(0)
        model_new = candidate.ModelNew(*init)
        if isinstance(model_new, torch.nn.Module):
            model_new = model_new.to(device)
        return model, model_new

    emit("stage", "forward")

    # KernelBench's shipped check (src/kernelbench/eval.py run_and_check_correctness).
    model, model_new = build()
    torch.manual_seed(42)
    seeds = [torch.randint(0, 2**32 - 1, (1,)).item() for _ in range(5)]
    passed = {"1e-2": 0, "1e-4": 0}
    for seed in seeds:
        torch.manual_seed(seed)
        inputs = [x.to(device) for x in problem.get_inputs()]
        output = model(*inputs)
        try:
            output_new = model_new(*inputs)
            synchronize()
            if output.shape != output_new.shape:
                continue
            for tol in ("1e-2", "1e-4"):
                if allclose(output, output_new, atol=float(tol), rtol=float(tol)):
                    passed[tol] += 1
        except Exception as e:  # noqa: BLE001 - KernelBench counts an exception as a failure
            emit("kernelbench_raised", "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:160]))
            break
    emit("kernelbench", {tol: "%d/5" % n for tol, n in passed.items()})
    del model, model_new, inputs, output
    output_new = None

    # Trials shaped like the harness's.
    def make_inputs(seed, distribution):
        torch.manual_seed(seed)
        gen = torch.Generator().manual_seed(seed + 7919)
        out = []
        for x in problem.get_inputs():
            if x.is_floating_point():
                if distribution == 1:
                    s = 0.5 + 3.5 * torch.rand((), generator=gen).item()
                    o = -2.0 + 4.0 * torch.rand((), generator=gen).item()
                    x = (x.double() * s + o).to(x.dtype)
                elif distribution == 2:
                    x = torch.randn(x.shape, generator=gen, dtype=torch.float64).to(x.dtype)
                elif distribution == 3:
                    mask = torch.rand(x.shape, generator=gen) < 0.001
                    x = torch.where(mask, x.double() * 100.0, x.double()).to(x.dtype)
            out.append(x.to(device))
        return out

    def judge(out, ref):
        issues = []
        if type(out) is not torch.Tensor:
            issues.append("not_a_tensor(%s)" % type(out).__name__)
            if not isinstance(out, torch.Tensor):
                return issues
            with torch._C.DisableTorchFunction():
                out = torch.Tensor._make_subclass(torch.Tensor, out)
        if out.shape != ref.shape:
            issues.append("wrong_shape(%s)" % list(out.shape))
            return issues
        if out.dtype != ref.dtype:
            issues.append("wrong_dtype(%s)" % str(out.dtype).replace("torch.", ""))
        c = out.detach().to("cpu", torch.float64)
        rr = ref.detach().to("cpu", torch.float64)
        if str(ref.dtype) not in THRESHOLDS:
            if not torch.equal(c, rr):
                issues.append("mismatch(%d elements differ)" % int((c != rr).sum()))
            return issues
        finite = torch.isfinite(rr)
        bad = finite & ~torch.isfinite(c)
        if bool(bad.any()):
            issues.append("nan_inf(%d)" % int(bad.sum()))
        normwise_max, rtol, atol_rel = THRESHOLDS[str(ref.dtype)]
        diff = torch.where(finite & torch.isfinite(c), (c - rr).abs(), torch.zeros_like(c))
        norm_r = float(rr[finite].norm()) if bool(finite.any()) else 0.0
        normwise = float(diff.norm()) / norm_r if norm_r > 0 else float(diff.norm())
        rms = norm_r / max(1, int(finite.sum())) ** 0.5
        over = int((diff > rtol * rr.abs() + atol_rel * rms).sum())
        if normwise > normwise_max or over:
            issues.append("mismatch(normwise %.1e, %d of %d elements over)" % (normwise, over, c.numel()))
        return issues

    # As in the harness, the candidate's process holds no reference output while it runs: the
    # reference outputs are computed first and kept as bytes, which no tensor search finds.
    def freeze(t):
        t = t.detach().to("cpu").contiguous()
        return bytes(t.view(-1).view(torch.uint8).numpy()), t.dtype, tuple(t.shape)

    def thaw(frozen):
        data, dtype, shape = frozen
        return torch.frombuffer(bytearray(data), dtype=torch.uint8).view(dtype).reshape(shape)

    model, model_new = build()
    frozen = [freeze(model(*make_inputs(1000 + trial, distribution)))
              for trial, distribution in enumerate((0, 1, 2, 3))]
    gc.collect()
    trials = []
    for trial, distribution in enumerate((0, 1, 2, 3)):
        inputs = make_inputs(1000 + trial, distribution)
        cand_inputs = [x.clone() for x in inputs]
        threads = set(threading.enumerate())
        synchronize()
        if device.type == "cuda":
            events = [torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)]
            record(events[0])
        start = clock()
        out = model_new(*cand_inputs)
        if device.type == "cuda":
            record(events[1])
        synchronize()
        ms = (clock() - start) * 1e3
        # Events on the caller's stream miss work left on another stream; the synchronised wall
        # clock does not (docs/eval.md, other_stream_work; a looser margin here than the harness's).
        event_ms = elapsed(events[0], events[1]) if device.type == "cuda" else ms
        left_running = [t for t in threading.enumerate() if t not in threads and t.is_alive()]
        ref_out = thaw(frozen[trial])
        issues = judge(out, ref_out)
        if ms > 2 * event_ms + 0.1:
            issues.append("other_stream_work(events %.2f ms, wall %.2f ms)" % (event_ms, ms))
        if any(not torch.equal(a, b) for a, b in zip(cand_inputs, inputs)):
            issues.append("mutated_input")
            again = freeze(model(*cand_inputs))
            if not judge(out, thaw(again)):
                issues.append("(a reference run after it on the same tensors matches)")
        if left_running:
            issues.append("background_thread(%d left running)" % len(left_running))
            time.sleep(0.5)
            synchronize()
            if not judge(out, ref_out):
                issues.append("(matches 0.5 s later)")
        trials.append({"trial": trial, "ms": round(ms, 2), "issues": issues})
        ref_out = again = None  # nothing of the reference outlives its trial
        emit("trial", trials[-1])

    # Operators dispatched by the reference and by the candidate (docs/eval.md, torch_fallback).
    try:
        from torch.utils._python_dispatch import TorchDispatchMode

        class Record(TorchDispatchMode):
            def __init__(self):
                super().__init__()
                self.ops = set()

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                name = func.overloadpacket.__name__
                if name not in NOT_COMPUTE:
                    self.ops.add(name)
                return func(*args, **(kwargs or {}))

        inputs = make_inputs(1000, 0)
        ref_ops, cand_ops = Record(), Record()
        with ref_ops:
            model(*[x.clone() for x in inputs])
        with cand_ops:
            model_new(*[x.clone() for x in inputs])
        synchronize()
        emit("ops", {"reference": sorted(ref_ops.ops), "candidate": sorted(cand_ops.ops),
                     "fallback": bool(ref_ops.ops) and ref_ops.ops <= cand_ops.ops})
    except Exception as e:  # noqa: BLE001
        emit("ops_error", "%s: %s" % (type(e).__name__, e))

    emit("patched", [k for k, get in fns.items() if get() is not before[k]])
    forged = b""
    try:
        while True:
            chunk = os.read(r, 65536)
            if not chunk:
                break
            forged += chunk
    except BlockingIOError:
        pass
    emit("forged", {"bytes": len(forged), "frames": forged.count(b"HRW1")})
    emit("stage", "done")


# ---------------------------------------------------------------------------------------------
# Parent: runs every case and says whether it behaved as the manifest expects.
# ---------------------------------------------------------------------------------------------

def run_case(case, device, timeout):
    root = os.environ.get("TORCH_EXTENSIONS_DIR", "/tmp/adv-ext")
    env = dict(os.environ, TORCH_EXTENSIONS_DIR=os.path.join(root, case["name"]))
    cmd = [sys.executable, os.path.abspath(__file__), "--child", case["name"], "--device", device]
    result = {"returncode": None}
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        result["returncode"] = p.returncode
        stdout, stderr = p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        result["timed_out"] = True
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        stderr = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
    result["trials"] = []
    for line in stdout.splitlines():
        if line.startswith(TAG):
            item = json.loads(line[len(TAG):])
            if "trial" in item:
                result["trials"].append(item["trial"])
            else:
                result.update(item)
    result["stderr_tail"] = stderr.strip().splitlines()[-1:] if stderr.strip() else []
    return result


def observed(result):
    """What happened, in one phrase, and the reason codes it corresponds to."""
    codes = set()
    rc = result.get("returncode")
    if result.get("timed_out"):
        return "hung (killed)", {"timeout"}
    if rc is not None and rc < 0:
        name = signal.Signals(-rc).name
        return "died of %s in %s" % (name, result.get("stage")), {"crash", "signal"}
    if "import_error" in result:
        kind = "compile_error" if result.get("import_error_is_build") else "load_error"
        return "raised at import: %s" % result["import_error"][:120], {kind}
    if result.get("stage") != "done":
        tail = " ".join(result.get("stderr_tail", []))[:160]
        kind = {"runtime_error"}
        if "memory" in tail.lower():
            kind.add("out_of_memory")
        return "raised in forward: %s" % tail, kind
    for t in result["trials"]:
        for issue in t["issues"]:
            if not issue.startswith("("):
                codes.add(issue.split("(")[0])
    if result.get("patched"):
        codes.add("tampering")
    if result.get("forged", {}).get("bytes"):
        codes.add("tampering")
    if result.get("ops", {}).get("fallback"):
        codes.add("torch_fallback")
    bad = codes - {"torch_fallback", "other_stream_work"}
    return ("incorrect" if bad else "correct"), codes | {"incorrect" if bad else "correct"}


def agrees(case, codes):
    expect = case["expect"]
    reasons = set(case.get("reasons", []))
    if expect not in codes:
        return False
    # Poison is not imitated here (nor the fill of memory a candidate keeps): an unwritten or stale
    # output is seen as a mismatch.
    wanted = {"mismatch" if r in ("unwritten_output", "stale_output") else r for r in reasons}
    if not wanted <= codes:
        return False
    if expect == "correct" and not reasons and codes & {"torch_fallback", "other_stream_work"}:
        return False
    return True


def describe(result):
    parts = []
    kb = result.get("kernelbench")
    if kb:
        parts.append("KernelBench allclose 1e-2 %s, 1e-4 %s" % (kb["1e-2"], kb["1e-4"]))
    if result.get("kernelbench_raised"):
        parts.append("KernelBench: raised %s" % result["kernelbench_raised"][:80])
    for t in result.get("trials", []):
        parts.append("trial %d %.1f ms: %s" % (t["trial"], t["ms"], "; ".join(t["issues"]) or "ok"))
    ops = result.get("ops")
    if ops:
        parts.append("ops ref %s cand %s%s" % (",".join(ops["reference"]), ",".join(ops["candidate"]) or "-",
                                                " -> fallback" if ops["fallback"] else ""))
    if result.get("patched"):
        parts.append("replaced: %s" % ", ".join(result["patched"]))
    forged = result.get("forged", {})
    if forged.get("bytes"):
        parts.append("forged %d bytes (%d frames) into the stand-in channel" % (forged["bytes"], forged["frames"]))
    if "import_s" in result:
        parts.append("import %.1f s" % result["import_s"])
    return parts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--case", action="append", help="run only this case (repeatable)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--timeout", type=float, default=600, help="seconds per case (builds included)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()

    cases = load_manifest()
    if args.child:
        case = next(c for c in cases if c["name"] == args.child)
        child(case, args.device)
        return 0

    selected = [c for c in cases if args.device in c["devices"] and (not args.case or c["name"] in args.case)]
    failures = 0
    print("torch under test: %s (%s)" % (sys.executable, args.device))
    for case in selected:
        expected = case["expect"] + (" [%s]" % ", ".join(case["reasons"]) if case.get("reasons") else "")
        if not case.get("plain_check", True):
            print("\n%-24s expect %-40s SKIPPED (plain_check = false: would never return)" % (case["name"], expected))
            continue
        start = time.monotonic()
        result = run_case(case, args.device, args.timeout)
        what, codes = observed(result)
        ok = agrees(case, codes)
        failures += not ok
        print("\n%-24s expect %-40s %s  [%s]  (%.0f s)" % (case["name"], expected, "agrees" if ok else "DISAGREES",
                                                         what, time.monotonic() - start))
        for part in describe(result):
            print("    " + part)
        sys.stdout.flush()
    print("\n%d cases run, %d disagree with the manifest" % (
        sum(1 for c in selected if c.get("plain_check", True)), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
