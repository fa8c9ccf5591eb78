#!/usr/bin/env python3
"""DLRM-Bench on one GPU: every problem's eager PyTorch, torch.compile and CUDA solution, timed the same
way, checked, and set against the device's measured copy bandwidth and bf16 matmul rate.

  python3 suites/dlrm-bench/measure.py --out DIR [--only 01,05] [--budget 450]

What it does, all within --budget seconds of wall clock (default 450, so one command of under 8
minutes; what the budget cuts is reported as not measured):
  - builds every solution's extension in parallel background processes (load_inline, cached by a
    stamp of its sources so that a later import does not rebuild);
  - measures the device once: copy bandwidth (a 2 GiB device-to-device copy, bytes read + written)
    and the dense bf16 matmul rate (8192^3);
  - while the extensions build, one process times every problem's eager Model and its torch.compile
    (default mode) on the large sizes (unless DLRM_BENCH_PRESET says otherwise), with two input sets
    drawn from seeds; torch.compile is skipped for the problems left when --baseline-share of the
    budget is spent;
  - then each solution in its own process (a crashing kernel cannot take the others down): ModelNew
    built under the Model's seed (its parameters must equal the Model's), its outputs on both input
    sets checked against eager in float64 with headroom eval's thresholds (after filling the
    allocator's cache with NaN bytes, so an unwritten element shows), then timed;
  - timing: CUDA events around one call, a 256 MiB buffer zeroed on the stream before each sample
    (L2 flushed), 3 warm-up calls, median of up to --samples samples;
  - writes DIR/results.json and DIR/results.md (the README's table: times, speedups, bytes and FLOPs
    over time as fractions of the measured ceilings), and DIR/problems/*.json as it goes.
TF32 is off, as in headroom eval's worker (the float32 references are strict float32).
"""
import argparse
import ast
import concurrent.futures
import glob
import hashlib
import importlib.util
import json
import math
import os
import subprocess
import sys
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
SOLUTIONS = os.path.join(HERE, "solutions")  # --solutions
SEED = 20261201
INPUT_SEEDS = (11, 12)
FLUSH_BYTES = 256 << 20
# headroom eval's thresholds by reference dtype (docs/eval.md): normwise, rtol, atol relative to rms.
THRESHOLDS = {"float64": (1e-10, 1e-8, 1e-10), "float32": (1e-4, 1e-3, 1e-4), "float16": (2e-3, 1e-2, 1e-3),
              "bfloat16": (1e-2, 3e-2, 1e-2)}


def log(*parts):
    print(time.strftime("%H:%M:%S"), *parts, flush=True)


def problem_names(only):
    names = sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(HERE, "problems", "*.py")))
    if only:
        wanted = [w.strip() for w in only.split(",") if w.strip()]
        names = [n for n in names if any(n.startswith(w) for w in wanted)]
    return names


def import_file(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def cache_builds():
    """load_inline that imports the library built before when a stamp of the same sources is found
    (load_inline itself may rewrite its sources and rebuild in every new process)."""
    import torch
    from torch.utils import cpp_extension as ce
    original = ce.load_inline

    def load_inline(name, cpp_sources, cuda_sources=None, **kwargs):
        key = hashlib.sha256(repr((name, cpp_sources, cuda_sources, sorted(kwargs.items()), torch.__version__,
                                   os.environ.get("TORCH_CUDA_ARCH_LIST", ""))).encode()).hexdigest()
        folder = os.path.join(os.environ["TORCH_EXTENSIONS_DIR"], name)
        stamp = os.path.join(folder, "measure-stamp")
        library = os.path.join(folder, name + ".so")
        if os.path.exists(library) and os.path.exists(stamp) and open(stamp).read() == key:
            return ce._import_module_from_library(name, folder, True)
        module = original(name, cpp_sources, cuda_sources=cuda_sources, **kwargs)
        with open(stamp, "w") as f:
            f.write(key)
        return module

    ce.load_inline = load_inline


# --- the metadata's formulas ---------------------------------------------------------------------------

def formula_functions():
    import torch

    def as_tensor(x):
        return x if isinstance(x, torch.Tensor) else torch.tensor(x)

    def distinct(*tensors):
        return int(torch.unique(torch.cat([as_tensor(t).reshape(-1) for t in tensors])).numel())

    def distinct_segments(t, sizes):
        flat, at, total = as_tensor(t).reshape(-1), 0, 0
        for n in sizes:
            total += int(torch.unique(flat[at:at + int(n)]).numel())
            at += int(n)
        return total

    return {
        "numel": lambda t: int(as_tensor(t).numel()),
        "size": lambda t, d: int(as_tensor(t).shape[int(d)]),
        "count": lambda xs: len(xs),
        "sum": lambda x: (int(as_tensor(x).sum()) if isinstance(x, torch.Tensor) and not x.is_floating_point()
                          else float(as_tensor(x).sum()) if isinstance(x, torch.Tensor) else sum(x)),
        "distinct": distinct,
        "distinct_rows": lambda t: sum(int(torch.unique(s).numel()) for s in as_tensor(t)),
        "distinct_segments": distinct_segments,
        "lengths": lambda offsets: as_tensor(offsets)[1:] - as_tensor(offsets)[:-1],
        "minimum": lambda t, k: torch.clamp(as_tensor(t), max=int(k)),
        "square": lambda t: as_tensor(t).double() ** 2,
        "mod": lambda t, k: torch.remainder(as_tensor(t), int(k)),
        "mul": lambda xs, k: [x * k for x in xs],
    }


def evaluate(expression, names, functions):
    """Arithmetic (+ - * / // ** and parentheses), names, calls of `functions`, constant subscripts."""
    def walk(node):
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise ValueError("unknown name %r in %r" % (node.id, expression))
            return names[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        if isinstance(node, ast.BinOp):
            a, b = walk(node.left), walk(node.right)
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b, ast.Div: lambda: a / b,
                   ast.FloorDiv: lambda: a // b, ast.Pow: lambda: a ** b}
            if type(node.op) in ops:
                return ops[type(node.op)]()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions and not node.keywords:
            return functions[node.func.id](*[walk(a) for a in node.args])
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            return walk(node.value)[node.slice.value]
        raise ValueError("not allowed in a formula: %r" % expression)
    return walk(ast.parse(expression, mode="eval"))


def shape_figures(meta, model_class, init, inputs):
    import inspect
    names = {}
    ctor = list(inspect.signature(model_class.__init__).parameters)[1:]
    names.update(zip(ctor, init))
    forward = list(inspect.signature(model_class.forward).parameters)[1:]
    names.update(zip(forward, inputs))
    functions = formula_functions()
    variables = {}
    for key, expression in meta.get("variables", {}).items():
        value = evaluate(expression, names, functions)
        names[key] = value
        variables[key] = value
    figures = {k: float(evaluate(v, names, functions)) for k, v in meta.get("formulas", {}).items()}
    return variables, figures


# --- correctness ----------------------------------------------------------------------------------------

def compare(reference, candidate):
    """headroom eval's check in float64: (passed, text)."""
    import torch
    refs = list(reference) if isinstance(reference, (tuple, list)) else [reference]
    cands = list(candidate) if isinstance(candidate, (tuple, list)) else [candidate]
    if len(refs) != len(cands):
        return False, "%d outputs, %d expected" % (len(cands), len(refs))
    notes = []
    for k, (r, c) in enumerate(zip(refs, cands)):
        if not isinstance(c, torch.Tensor):
            return False, "output %d is a %s" % (k, type(c).__name__)
        if tuple(r.shape) != tuple(c.shape):
            return False, "output %d: shape %s, expected %s" % (k, tuple(c.shape), tuple(r.shape))
        if r.dtype != c.dtype:
            return False, "output %d: %s, expected %s" % (k, c.dtype, r.dtype)
        if not r.is_floating_point():
            wrong = int((r != c).sum())
            if wrong:
                return False, "output %d: %d of %d integers differ" % (k, wrong, r.numel())
            notes.append("exact")
            continue
        normwise, rtol, atol_rel = THRESHOLDS[str(r.dtype).replace("torch.", "")]
        r64, c64 = r.double(), c.double()
        finite = torch.isfinite(r64)
        if bool((finite & ~torch.isfinite(c64)).any()):
            return False, "output %d: NaN or Inf where the reference is finite" % k
        diff = (c64 - r64).where(finite, torch.zeros_like(r64))
        r_fin = r64.where(finite, torch.zeros_like(r64))
        norm = float(r_fin.norm())
        rel = float(diff.norm()) / norm if norm > 0 else float(diff.norm())
        rms = norm / math.sqrt(max(1, r.numel()))
        over = int((diff.abs() > rtol * r_fin.abs() + atol_rel * rms).sum())
        notes.append("normwise %.2e" % rel)
        if rel > normwise or over:
            return False, "output %d: normwise error %.2e (limit %.0e), %d elements over the per-element bound" % (
                k, rel, normwise, over)
    return True, ", ".join(notes)


# --- timing ---------------------------------------------------------------------------------------------

def time_call(fn, inputs, flush, samples, max_seconds):
    """Median of CUDA-event samples, L2 flushed before each (on the CPU: the host clock, no flush)."""
    import torch
    cuda = flush is not None
    for _ in range(3):
        fn(*inputs)
    if cuda:
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    stop = time.time() + max_seconds
    while len(times) < samples and (len(times) < 5 or time.time() < stop):
        if cuda:
            flush.zero_()
            start.record()
            fn(*inputs)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1e3)
        else:
            began = time.perf_counter()
            fn(*inputs)
            times.append((time.perf_counter() - began) * 1e6)
    times.sort()
    return {"median_us": times[len(times) // 2], "min_us": times[0], "samples": len(times)}


def median_us(step):
    """The median of a step's timing (the step itself, or its "timing"), None when it has none."""
    if not isinstance(step, dict):
        return None
    if "median_us" in step:
        return step["median_us"]
    timing = step.get("timing")
    return timing["median_us"] if isinstance(timing, dict) else None


# --- one problem, in its own process -----------------------------------------------------------------

class Problem:
    """One problem in this process: its Model (seeded), two input sets, the eager outputs on both."""

    def __init__(self, name, device_name):
        import tomllib
        import torch
        self.name = name
        self.device = torch.device(device_name)
        self.cuda = self.device.type == "cuda"
        self.module = import_file(os.path.join(HERE, "problems", name + ".py"), "problem_" + name)
        with open(os.path.join(HERE, "problems", name + ".toml"), "rb") as f:
            self.meta = tomllib.load(f)
        self.init = self.module.get_init_inputs()
        self.seed(SEED)
        self.model = self.module.Model(*self.init).to(self.device)
        self.sets = []
        for value in INPUT_SEEDS:
            self.seed(value)
            if self.cuda:
                with self.device:
                    inputs = self.module.get_inputs()
            else:
                inputs = self.module.get_inputs()
            self.sets.append([x.to(self.device) if isinstance(x, torch.Tensor) else x for x in inputs])
        self.flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device=self.device) if self.cuda else None
        self.references = [self.model(*inputs) for inputs in self.sets]
        self.synchronize()

    def seed(self, value):
        import torch
        torch.manual_seed(value)
        if self.cuda:
            torch.cuda.manual_seed_all(value)

    def synchronize(self):
        import torch
        if self.cuda:
            torch.cuda.synchronize()


class Record:
    """A JSON file of step results, written after every step (a killed process leaves what it did)."""

    def __init__(self, path, **fields):
        self.path = path
        self.data = dict(fields)
        self.save()

    def save(self):
        with open(self.path, "w") as f:
            json.dump(self.data, f, indent=1)

    def step(self, key, fn):
        began = time.time()
        try:
            self.data[key] = fn()
        except Exception as e:  # reported in the table; the next step goes on
            self.data[key] = {"error": "%s: %s" % (type(e).__name__, str(e)[:1500]),
                              "traceback": traceback.format_exc()[-3000:]}
        self.data.setdefault("seconds", {})[key] = round(time.time() - began, 2)
        self.save()
        return self.data[key]


def setup_torch():
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_grad_enabled(False)


def run_baselines(names, out, deadline, samples, max_seconds, skip_compile, device_name):
    """Eager and torch.compile for each problem in turn, in this one process (no custom kernel runs here).
    torch.compile is skipped once the deadline has passed."""
    import gc
    import torch
    setup_torch()
    for name in names:
        if time.time() > deadline + 30:
            break
        record = Record(os.path.join(out, "problems", name + ".baseline.json"), problem=name)
        problem = None
        try:
            problem = Problem(name, device_name)
            record.data.update(title=problem.meta.get("title", ""), category=problem.meta.get("category", ""),
                               bound=problem.meta.get("bound", ""))

            def figures():
                variables, values = shape_figures(problem.meta, problem.module.Model, problem.init, problem.sets[0])
                return {"variables": {k: (v if isinstance(v, (int, float)) else str(v)) for k, v in variables.items()},
                        **values}
            record.step("figures", figures)
            record.step("eager", lambda: time_call(problem.model, problem.sets[0], problem.flush, samples, max_seconds))

            def compiled():
                if skip_compile or not hasattr(torch, "compile"):
                    raise RuntimeError("skipped")
                if time.time() > deadline:
                    raise TimeoutError("not measured: the budget for baselines was spent")
                fn = torch.compile(problem.model)
                began = time.time()
                output = fn(*problem.sets[0])
                problem.synchronize()
                compile_seconds = time.time() - began
                ok, text = compare(problem.references[0], output)
                return {"compile_seconds": round(compile_seconds, 1), "matches_eager": ok, "check": text,
                        "timing": time_call(fn, problem.sets[0], problem.flush, samples, max_seconds)}
            record.step("compile", compiled)
        except Exception as e:
            record.data["error"] = "%s: %s" % (type(e).__name__, str(e)[:1500])
            record.save()
        log("baselines %-36s eager %s | compile %s" % (name, show(record.data.get("eager")), show(record.data.get("compile"))))
        del problem
        gc.collect()
        if hasattr(torch, "_dynamo"):
            torch._dynamo.reset()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    return 0


def run_ours(name, out, deadline, samples, max_seconds, device_name):
    """The solution of one problem, in its own process: wait for its build, check it on both input sets
    against eager (NaN bytes in the allocator's cache first), time it."""
    import torch
    setup_torch()
    record = Record(os.path.join(out, "problems", name + ".ours.json"), problem=name)
    problem = Problem(name, device_name)

    def ours():
        ready = os.path.join(out, "builds", name + ".json")
        while not os.path.exists(ready):
            if time.time() > deadline:
                raise TimeoutError("its extension was not built in time")
            time.sleep(1)
        with open(ready) as f:
            build = json.load(f)
        if not build.get("ok"):
            error = build.get("error", "").strip()
            raise RuntimeError("build failed: " + (error.splitlines()[0][:300] if error else "no message"))
        cache_builds()
        solution = import_file(os.path.join(SOLUTIONS, name + ".py"), "solution_" + name)
        problem.seed(SEED)
        candidate = solution.ModelNew(*problem.init).to(problem.device)
        mine = list(candidate.parameters()) + list(candidate.buffers())
        theirs = list(problem.model.parameters()) + list(problem.model.buffers())
        same_weights = all(any(a.shape == b.shape and a.dtype == b.dtype and torch.equal(a, b) for b in theirs)
                           for a in mine if a.numel() > 1)
        checks = []
        for inputs, reference in zip(problem.sets, problem.references):
            if problem.cuda:  # NaN / -1 bytes in the memory the allocator hands out next: an unwritten element shows
                poison = torch.empty(4 << 30, dtype=torch.uint8, device=problem.device).fill_(0xFF)
                del poison
            output = candidate(*inputs)
            problem.synchronize()
            checks.append(compare(reference, output))
        correct = all(ok for ok, _ in checks)
        timing = time_call(candidate, problem.sets[0], problem.flush, samples, max_seconds) if correct else None
        return {"correct": correct, "checks": [text for _, text in checks], "same_weights": same_weights,
                "timing": timing, "build_seconds": build.get("seconds")}
    record.step("ours", ours)
    return 0


def show(step):
    t = median_us(step)
    if t is not None:
        return "%.1f us" % t
    return step.get("error", "-")[:70] if isinstance(step, dict) else "-"


def build_one(name, out):
    began = time.time()
    record = {"problem": name}
    try:
        import torch  # noqa: F401 (first, so a failure to import torch is reported as such)
        cache_builds()
        import_file(os.path.join(SOLUTIONS, name + ".py"), "solution_" + name)
        record["ok"] = True
    except Exception as e:
        record.update(ok=False, error="%s: %s" % (type(e).__name__, str(e)[-6000:]), traceback=traceback.format_exc()[-3000:])
    record["seconds"] = round(time.time() - began, 1)
    tmp = os.path.join(out, "builds", name + ".json.tmp")
    with open(tmp, "w") as f:
        json.dump(record, f, indent=1)
    os.replace(tmp, os.path.join(out, "builds", name + ".json"))
    return 0


def ceilings(out):
    import torch
    device = torch.device("cuda")
    props = torch.cuda.get_device_properties(device)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    n = 1 << 29  # 2 GiB of float32
    src = torch.ones(n, device=device)
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    best = float("inf")
    for _ in range(10):
        start.record()
        dst.copy_(src)
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) * 1e-3)
    copy = 2 * n * 4 / best
    del src, dst
    m = 8192
    a = torch.randn(m, m, device=device, dtype=torch.bfloat16)
    b = torch.randn(m, m, device=device, dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    best = float("inf")
    for _ in range(5):
        start.record()
        for _ in range(10):
            a @ b
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) * 1e-3 / 10)
    record = {"gpu": props.name, "sms": props.multi_processor_count, "l2_bytes": getattr(props, "L2_cache_size", None),
              "memory_bytes": props.total_memory, "torch": torch.__version__, "cuda": torch.version.cuda,
              "copy_bytes_per_s": copy, "bf16_matmul_flop_per_s": 2.0 * m ** 3 / best}
    with open(os.path.join(out, "ceilings.json"), "w") as f:
        json.dump(record, f, indent=1)
    return 0


# --- the whole run --------------------------------------------------------------------------------------

def table(results, device):
    copy = device.get("copy_bytes_per_s")
    rate = device.get("bf16_matmul_flop_per_s")
    lines = ["| problem | bound | eager us | compile us | ours us | vs eager | vs compile | vs faster | "
             "logical GB/s | of copy BW | TFLOP/s | of bf16 rate | check |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    speedups = []

    for r in results:
        eager = median_us(r.get("eager"))
        comp = median_us(r.get("compile"))
        ours_step = r.get("ours", {})
        mine = median_us(ours_step) if ours_step.get("correct") else None
        figures = r.get("figures", {}) if "error" not in r.get("figures", {}) else {}
        cells = [r["problem"], r.get("bound", "")]
        cells += ["%.1f" % t if t else "-" for t in (eager, comp, mine)]
        ratio = lambda base: "%.2fx" % (base / mine) if base and mine else "-"
        faster = min(t for t in (eager, comp) if t) if (eager or comp) else None
        cells += [ratio(eager), ratio(comp), ratio(faster)]
        if faster and mine:
            speedups.append(faster / mine)
        if mine and figures:
            gbs = figures.get("logical_bytes", 0) / (mine * 1e-6)
            tf = figures.get("flops", 0) / (mine * 1e-6)
            cells += ["%.0f" % (gbs / 1e9), "%.0f%%" % (100 * gbs / copy) if copy else "-",
                      "%.1f" % (tf / 1e12), "%.0f%%" % (100 * tf / rate) if rate else "-"]
        else:
            cells += ["-"] * 4
        if "skipped" in r:
            check = "not measured: " + r["skipped"]
        elif "error" in ours_step:
            check = "error: " + ours_step["error"].splitlines()[0][:80]
        elif ours_step:
            check = ("correct" if ours_step.get("correct") else "WRONG: " + "; ".join(ours_step.get("checks", []))[:120])
        else:
            check = "not run"
        cells.append(check.replace("|", "/"))
        lines.append("| " + " | ".join(cells) + " |")
    geomean = math.exp(sum(math.log(s) for s in speedups) / len(speedups)) if speedups else None
    return "\n".join(lines), geomean


def main():
    global SOLUTIONS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--out", default=os.environ.get("OUT") or "dlrm-bench-results", help="results folder (default $OUT)")
    ap.add_argument("--only", default="", help="comma-separated problem prefixes, e.g. 01,05")
    ap.add_argument("--budget", type=float, default=450, help="seconds of wall clock for everything (default 450)")
    ap.add_argument("--problem-timeout", type=float, default=120,
                    help="seconds per solution process (default 120)")
    ap.add_argument("--baseline-share", type=float, default=0.55,
                    help="share of the budget eager and torch.compile may take (default 0.55)")
    ap.add_argument("--samples", type=int, default=30, help="timed samples per measurement (default 30)")
    ap.add_argument("--max-seconds", type=float, default=2.0, help="seconds of sampling per measurement (default 2)")
    ap.add_argument("--build-jobs", type=int, default=0, help="extensions built at once (default: all, up to the cores)")
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    ap.add_argument("--solutions", default=os.path.join(HERE, "solutions"), help="folder of ModelNew files named like the problems "
                                                           "(default: suites/dlrm-bench/solutions)")
    ap.add_argument("--device", default="cuda",
                    help="cuda (default); cpu checks this script's plumbing with DLRM_BENCH_PRESET=cpu: eager and "
                         "the metadata's figures only (the solutions need a GPU)")
    ap.add_argument("--run-baselines", help=argparse.SUPPRESS)
    ap.add_argument("--run-ours", help=argparse.SUPPRESS)
    ap.add_argument("--build-one", help=argparse.SUPPRESS)
    ap.add_argument("--ceilings", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--deadline", type=float, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    SOLUTIONS = os.path.abspath(args.solutions)
    out = os.path.abspath(args.out)
    for sub in ("problems", "builds", "ext"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    os.environ["TORCH_EXTENSIONS_DIR"] = os.path.join(out, "ext")
    if args.build_one:
        return build_one(args.build_one, out)
    if args.ceilings:
        return ceilings(out)
    if args.run_baselines:
        return run_baselines(args.run_baselines.split(","), out, args.deadline, args.samples, args.max_seconds,
                             args.no_compile, args.device)
    if args.run_ours:
        return run_ours(args.run_ours, out, args.deadline, args.samples, args.max_seconds, args.device)

    began = time.time()
    deadline = began + args.budget
    names = problem_names(args.only)
    if not names:
        print("measure: no problem matches --only %r" % args.only, file=sys.stderr)
        return 2
    log("measure: %d problems, results in %s, budget %.0f s" % (len(names), out, args.budget))
    me = [sys.executable, os.path.abspath(__file__), "--out", out, "--solutions", SOLUTIONS]
    cores = os.cpu_count() or 2
    env = dict(os.environ, MAX_JOBS="2")

    def build(name):
        t = time.time()
        try:
            p = subprocess.run(me + ["--build-one", name], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=max(10, deadline - time.time()))
            tail = p.stdout[-3000:]
        except subprocess.TimeoutExpired:
            tail = "build timed out"
        marker = os.path.join(out, "builds", name + ".json")
        if not os.path.exists(marker):  # the process died before writing its record
            with open(marker, "w") as f:
                json.dump({"problem": name, "ok": False, "error": tail, "seconds": round(time.time() - t, 1)}, f)
        with open(marker) as f:
            ok = json.load(f).get("ok")
        log("build %-36s %s in %.0f s" % (name, "ok" if ok else "FAILED", time.time() - t))

    for stale in glob.glob(os.path.join(out, "builds", "*.json")) + glob.glob(os.path.join(out, "problems", "*.json")):
        os.remove(stale)
    builders = concurrent.futures.ThreadPoolExecutor(max_workers=args.build_jobs or max(1, min(len(names), cores)))
    build_jobs = [builders.submit(build, n) for n in names]

    try:
        if args.device != "cuda":
            raise RuntimeError("no device ceilings on %s" % args.device)
        subprocess.run(me + ["--ceilings"], timeout=120, check=True)
        with open(os.path.join(out, "ceilings.json")) as f:
            device = json.load(f)
        log("device: %s, copy %.0f GB/s, bf16 matmul %.0f TFLOP/s, L2 %s MB" % (
            device["gpu"], device["copy_bytes_per_s"] / 1e9, device["bf16_matmul_flop_per_s"] / 1e12,
            (device.get("l2_bytes") or 0) >> 20))
    except Exception as e:
        device = {"error": str(e)}
        log("device ceilings failed: %s" % e)

    # Eager and torch.compile for every problem in one process, while the extensions build (the CPU work
    # of both overlaps; the GPU runs one thing at a time). It gets at most --baseline-share of the budget.
    common = ["--samples", str(args.samples), "--max-seconds", str(args.max_seconds), "--device", args.device]
    if args.no_compile:
        common.append("--no-compile")
    baseline_deadline = began + args.baseline_share * args.budget
    for attempt in range(2):  # once more for the problems after one that killed the process
        todo = [n for n in names if not os.path.exists(os.path.join(out, "problems", n + ".baseline.json"))]
        if not todo or time.time() > baseline_deadline:
            break
        try:
            subprocess.run(me + ["--run-baselines", ",".join(todo), "--deadline", str(baseline_deadline)] + common,
                           timeout=max(10, baseline_deadline + 60 - time.time()))
        except subprocess.TimeoutExpired:
            log("baselines: stopped at the end of their budget")

    # Then each solution in its own process.
    for name in names:
        left = deadline - time.time()
        if left < 15:
            log("%s: solution not measured (budget spent)" % name)
            continue
        t = time.time()
        cmd = me + ["--run-ours", name, "--deadline", str(min(deadline, t + args.problem_timeout) - 5)] + common
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=min(left, args.problem_timeout))
            status, tail = "exit %d" % p.returncode, p.stdout[-2000:]
        except subprocess.TimeoutExpired as e:
            output = e.stdout or ""
            status, tail = "timed out", output.decode(errors="replace")[-2000:] if isinstance(output, bytes) else output[-2000:]
        path = os.path.join(out, "problems", name + ".ours.json")
        record = json.load(open(path)) if os.path.exists(path) else {"problem": name}
        record["process"] = status
        if status != "exit 0":
            record["process_output"] = tail
        with open(path, "w") as f:
            json.dump(record, f, indent=1)
        ours = record.get("ours", {})
        log("ours %-36s %s (%s) [%s, %.0f s]" % (name, show(ours), "correct" if ours.get("correct") else "NOT correct",
                                                status, time.time() - t))

    results = []
    for name in names:
        merged = {"problem": name}
        for part in ("baseline", "ours"):
            path = os.path.join(out, "problems", "%s.%s.json" % (name, part))
            if os.path.exists(path):
                with open(path) as f:
                    data = json.load(f)
                seconds = data.pop("seconds", {})
                merged.update(data)
                merged.setdefault("seconds", {}).update(seconds)
        if "eager" not in merged and "ours" not in merged:
            merged["skipped"] = "budget"
        results.append(merged)

    builders.shutdown(wait=False, cancel_futures=True)
    text, geomean = table(results, device if "error" not in device else {})
    summary = {"device": device, "geomean_speedup_vs_faster_baseline": geomean, "seconds": round(time.time() - began, 1),
               "problems": results}
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(summary, f, indent=1)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("DLRM-Bench, %s (torch %s, CUDA %s); copy %.0f GB/s, bf16 matmul %.0f TFLOP/s.\n\n" % (
            device.get("gpu", "?"), device.get("torch", "?"), device.get("cuda", "?"),
            device.get("copy_bytes_per_s", 0) / 1e9, device.get("bf16_matmul_flop_per_s", 0) / 1e12))
        f.write(text + "\n\nGeometric mean speedup over the faster of eager and torch.compile: %s\n" % (
            "%.2fx" % geomean if geomean else "-"))
    print(text)
    log("geometric mean speedup over the faster baseline: %s; %.0f s in all; %s" % (
        "%.2fx" % geomean if geomean else "-", time.time() - began, os.path.join(out, "results.md")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
