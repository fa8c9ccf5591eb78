#!/usr/bin/python3
"""Correctness check of the honest suite under plain PyTorch, outside headroom: every candidate of
manifest.toml that lists the device gives its problem's outputs. It is not a test of `headroom eval`.

For each case: Model and ModelNew are built under one seed (as the harness builds them, autograd
off), and for several trials shaped like the harness's (inputs as drawn; shifted, scaled and signed;
standard normal; 0.1% outliers times 100; two more seeds) the reference and the candidate run on
the same inputs, the candidate twice in a row on two different input sets (a candidate that returns
its own persistent memory must have the right values for each call when that call returns). Each
output is compared in float64 with a per-element bound |c - r| <= 1e-4 |r| + 1e-4 rms(r) and a
normwise bound of 5e-5 (tighter than headroom's float32 thresholds: rtol 1e-3 and 1e-4), inputs must come
back unchanged, and the operators each side dispatched show whether headroom's torch_fallback rule
(every compute operator of the reference dispatched by the candidate on operands of the reference's
sizes) would apply.

    TORCH_EXTENSIONS_DIR=/tmp/honest-ext /usr/bin/python3 suites/honest/check_plain.py [--case NAME]...
Exit status 0 when every case checked passed.
"""
import argparse
import importlib.util
import math
import os
import sys
import time
import tomllib

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
NOT_COMPUTE = {
    "_local_scalar_dense", "_reshape_alias", "_to_copy", "_unsafe_view", "alias", "as_strided", "as_strided_",
    "broadcast_tensors", "chunk", "clone", "contiguous", "copy_", "detach", "empty", "empty_like",
    "empty_strided", "expand", "expand_as", "fill_", "flatten", "full", "full_like", "is_same_size", "item",
    "lift_fresh", "lift_fresh_copy", "movedim", "narrow", "new_empty", "new_empty_strided", "new_full",
    "new_ones", "new_zeros", "ones", "ones_like", "permute", "reshape", "resize_", "resolve_conj",
    "resolve_neg", "result_type", "select", "set_", "slice", "split", "squeeze", "squeeze_", "t", "to",
    "transpose", "unbind", "unflatten", "unsqueeze", "unsqueeze_", "view", "view_as", "zero_", "zeros",
    "zeros_like"}


def import_file(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def redraw(t, distribution, gen):
    if not t.is_floating_point():
        return t
    if distribution == 1:
        s = 0.5 + 3.5 * torch.rand((), generator=gen).item()
        o = -2.0 + 4.0 * torch.rand((), generator=gen).item()
        return t.mul_(s).add_(o)
    if distribution == 2:
        return torch.randn(t.shape, generator=gen, dtype=t.dtype)
    if distribution == 3:
        mask = torch.rand(t.shape, generator=gen) < 0.001
        t[mask] *= 100.0
    return t


def make_inputs(problem, seed, distribution):
    torch.manual_seed(seed)
    inputs = problem.get_inputs()
    gen = torch.Generator().manual_seed(seed ^ 0x5EED)
    return [redraw(x.detach().contiguous(), distribution, gen) if isinstance(x, torch.Tensor) else x for x in inputs]


def outputs(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def compare(cand, ref):
    """(ok, normwise error, worst per-element ratio to its bound) of one output."""
    if type(cand) is not torch.Tensor or cand.shape != ref.shape or cand.dtype != ref.dtype:
        return False, math.inf, math.inf
    c, r = cand.detach().double(), ref.detach().double()
    if not torch.isfinite(c).all():
        return False, math.inf, math.inf
    if c.dtype.is_floating_point and not ref.dtype.is_floating_point:
        return bool(torch.equal(c, r)), 0.0, 0.0
    rms = r.square().mean().sqrt().item() if r.numel() else 0.0
    rnorm = r.norm().item()
    normwise = (c - r).norm().item() / rnorm if rnorm > 0 else (c - r).norm().item()
    bound = 1e-4 * r.abs() + 1e-4 * rms
    ratio = ((c - r).abs() / bound.clamp_min(1e-300)).max().item() if r.numel() else 0.0
    return normwise <= 5e-5 and ratio <= 1.0, normwise, ratio


def elements_read(t):
    """Elements of a tensor an operator reads (a zero-stride dimension counts once), as headroom's
    operator record counts them."""
    if 0 in t.shape:
        return 0
    n = 1
    for size, stride in zip(t.shape, t.stride()):
        n *= size if stride != 0 else 1
    return n


class OpRecord(torch.utils._python_dispatch.TorchDispatchMode):
    """Each operator with the elements its tensor operands read: "div(2097152,512)"."""
    def __init__(self):
        super().__init__()
        self.ops = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        sizes = [str(elements_read(x)) for a in list(args) + list((kwargs or {}).values())
                 for x in (a if isinstance(a, (list, tuple)) else [a]) if isinstance(x, torch.Tensor)]
        self.ops.add("%s(%s)" % (func.__name__.split(".")[0], ",".join(sizes)))
        return func(*args, **(kwargs or {}))


def run(model, inputs, record=False):
    args = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
    if record:
        rec = OpRecord()
        with rec:
            value = model(*args)
        ops = rec.ops
    else:
        value, ops = model(*args), None
    for a, x in zip(args, inputs):
        if isinstance(x, torch.Tensor) and not torch.equal(a, x):
            raise AssertionError("the call changed an input")
    return outputs(value), ops


def check_case(case, device):
    problem = import_file(os.path.join(HERE, case["problem"]), "honest_problem_" + case["name"])
    candidate = import_file(os.path.join(HERE, case["candidate"]), "honest_candidate_" + case["name"])
    init = problem.get_init_inputs()
    torch.manual_seed(1234)
    ref = problem.Model(*init).to(device)
    torch.manual_seed(1234)
    cand = candidate.ModelNew(*init).to(device)
    worst_norm, worst_ratio, problems = 0.0, 0.0, []
    ref_ops = cand_ops = None
    trials = [(7, 0), (11, 1), (13, 2), (17, 3), (19, 0), (23, 1), (29, 3)]
    for i, (seed, distribution) in enumerate(trials):
        first = [x.to(device) if isinstance(x, torch.Tensor) else x for x in make_inputs(problem, seed, distribution)]
        second = [x.to(device) if isinstance(x, torch.Tensor) else x
                  for x in make_inputs(problem, seed + 1000, distribution)]
        ref_first, ops = run(ref, first, record=(i == 0))
        if ops is not None:
            ref_ops = ops
        ref_second, _ = run(ref, second)
        if not all(torch.isfinite(o).all() for o in ref_first + ref_second):
            continue  # outside the problem's domain, as headroom skips such a trial
        for inputs, expected in ((first, ref_first), (second, ref_second)):
            got, ops = run(cand, inputs, record=(i == 0 and inputs is first))
            if ops is not None:
                cand_ops = ops
            if len(got) != len(expected):
                problems.append("trial %d: %d outputs, expected %d" % (i, len(got), len(expected)))
                continue
            for g, e in zip(got, expected):
                ok, normwise, ratio = compare(g, e)
                worst_norm, worst_ratio = max(worst_norm, normwise), max(worst_ratio, ratio)
                if not ok:
                    problems.append("trial %d (distribution %d): normwise %.2e, element ratio %.2f"
                                    % (i, distribution, normwise, ratio))
    compute = {op for op in ref_ops if op.split("(")[0] not in NOT_COMPUTE} if ref_ops else set()
    fallback = bool(compute) and compute <= (cand_ops or set())
    return problems, worst_norm, worst_ratio, fallback, sorted(compute), sorted(cand_ops or [])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", action="append")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    args = parser.parse_args()
    torch.set_grad_enabled(False)
    with open(os.path.join(HERE, "manifest.toml"), "rb") as f:
        cases = tomllib.load(f)["case"]
    failed = 0
    for case in cases:
        if args.case and case["name"] not in args.case:
            continue
        if args.device not in case.get("devices", ["cpu", "cuda"]):
            continue
        began = time.time()
        try:
            problems, norm, ratio, fallback, ref_ops, cand_ops = check_case(case, torch.device(args.device))
        except Exception as e:  # noqa: BLE001 - a case's failure is reported, the others go on
            problems, norm, ratio, fallback, ref_ops, cand_ops = ["%s: %s" % (type(e).__name__, e)], 0, 0, False, [], []
        status = "ok" if not problems else "FAIL"
        failed += bool(problems)
        print("%-30s %-4s normwise %.1e  element ratio %.3f  %s  %.1fs" % (
            case["name"], status, norm, ratio, "TORCH_FALLBACK " + str(ref_ops) if fallback else "", time.time() - began))
        for p in problems[:3]:
            print("    " + p)
        sys.stdout.flush()
    print("%d case(s) failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
