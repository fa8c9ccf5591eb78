#!/usr/bin/env python3
"""Writes a set of tiny CPU problems and candidates for the scale tests and benchmark
(tests/cli/scale_*.sh, bench/scale_store.sh): a few real evaluations beside many cheap ones.

Cheap: "placeholder" problems whose get_inputs() raises, so their reference fails once per process
that takes the problem and every candidate of it is judged reference_error without a worker of its
own. A real evaluation starts a Python worker that imports torch (2.5 s of CPU on the 2-core test
machine), so a thousand of them would take most of an hour; what the scale tests check (claims,
leases, nothing lost, nothing twice) is the same for both.

Real: small ReLU and add problems with one correct and two wrong candidates each.

usage: scale_jobs.py DIR [--placeholders P] [--per-placeholder N]
"""
import argparse
import pathlib

PLACEHOLDER = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x


def get_inputs():
    raise RuntimeError("placeholder {name}: its reference fails by design (a cheap job for the scale tests)")


def get_init_inputs():
    return []
'''

REAL = {
    "relu_small": ("torch.relu(x)", "[torch.randn(64, 64)]"),
    "add_small": ("x + y", "[torch.randn(32, 128), torch.randn(32, 128)]"),
}

REAL_PROBLEM = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, {args}):
        return {body}


def get_inputs():
    return {inputs}


def get_init_inputs():
    return []
'''

CANDIDATE = '''import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, {args}):
        return {body}  # {tag}
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--placeholders", type=int, default=7)
    ap.add_argument("--per-placeholder", type=int, default=142)
    ap.add_argument("--no-real", action="store_true")
    a = ap.parse_args()
    problems = pathlib.Path(a.dir, "problems")
    candidates = pathlib.Path(a.dir, "candidates")
    problems.mkdir(parents=True, exist_ok=True)
    candidates.mkdir(parents=True, exist_ok=True)
    for p in range(a.placeholders):
        name = f"placeholder_{p:02d}"
        (problems / f"{name}.py").write_text(PLACEHOLDER.format(name=name))
        for c in range(a.per_placeholder):
            (candidates / f"{name}_c{c:04d}.py").write_text(CANDIDATE.format(args="x", body="x", tag=f"{name} candidate {c}"))
    if a.no_real:
        return
    for name, (body, inputs) in REAL.items():
        args = "x, y" if "y" in body else "x"
        (problems / f"{name}.py").write_text(REAL_PROBLEM.format(args=args, body=body, inputs=inputs))
        first = args.split(",")[0]
        for tag, cand in (("ok", body), ("zeros", f"torch.zeros_like({first})"), ("identity", f"{first}.clone()")):
            (candidates / f"{name}_{tag}.py").write_text(CANDIDATE.format(args=args, body=cand, tag=tag))


if __name__ == "__main__":
    main()
