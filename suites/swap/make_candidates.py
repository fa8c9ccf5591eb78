#!/usr/bin/env python3
"""Writes the `headroom eval` candidates of the swap problems (suites/swap/problems) into OUT: the
very kernels `--swap` puts into the workloads (workloads/swap.py), each as a self-contained
KernelBench candidate, since a candidate's worker sees only its own file.

  OUT/swap/dlrm_embedding_forward.py    DLRM-Bench 01's solution, its ModelNew for the workload's 26 tables
  OUT/swap/dlrm_embedding_backward.py   DLRM-Bench 04's solution, the same for the fused row-wise Adagrad
  OUT/swap/gpt_gelu_forward.py          workloads/kernels/gelu_tanh.{cpp,cu}
  OUT/swap/gpt_gelu_backward.py
  OUT/swap/dlrmv2_cross_forward.py      DLRM-Bench 06's solution as it is (its problem's shapes are the workload's)
  OUT/swap-slowK/gpt_gelu_*.py          the same kernels, every pass repeated K times (--slow-factor)

The DLRM candidates are a solution file followed by a ModelNew that replaces the solution's own; the
files are written here each time, so the kernels evaluated are the ones in the tree.

  python3 suites/swap/make_candidates.py OUT [--slow-factor K]
"""
import argparse
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

FORWARD_MODEL = r'''

# The DLRM workload's 26 tables (suites/swap/problems/dlrm_embedding_forward.py): each table's bags
# through the kernel above, as `--swap embedding` runs them in workloads/dlrm.py.
class ModelNew(nn.Module):
    def __init__(self, table_rows, multi_hot, dim):
        super().__init__()
        self.multi_hot = list(multi_hot)
        self.weights = nn.ParameterList(
            nn.Parameter(torch.randn(n, dim, device=_table_device()), requires_grad=False) for n in table_rows)

    def forward(self, values, offsets):
        batch = offsets.shape[1] - 1
        pooled, at = [], 0
        for t, (weight, hot) in enumerate(zip(self.weights, self.multi_hot)):
            ids = values[at:at + batch * hot]
            at += batch * hot
            pooled.append(_ext.embedding_bag_sum(weight, ids, offsets[t]))
        return tuple(pooled)
'''

BACKWARD_MODEL = r'''

# The DLRM workload's 26 tables (suites/swap/problems/dlrm_embedding_backward.py): each table's
# pooled gradient through the kernel above (one table of the table-batched layout), as
# `--swap embedding` runs it in the backward of workloads/dlrm.py.
class ModelNew(nn.Module):
    def __init__(self, table_rows, multi_hot, dim, lr, eps):
        super().__init__()
        device = _table_device()
        self.multi_hot = list(multi_hot)
        self.weights = nn.ParameterList(
            nn.Parameter(torch.randn(n, dim, device=device), requires_grad=False) for n in table_rows)
        for t, n in enumerate(table_rows):
            self.register_buffer(f"momentum{t}", torch.rand(n, device=device))
        self.lr = lr
        self.eps = eps

    def forward(self, values, grad_out):
        batch = grad_out.shape[1]
        out, at = [], 0
        for t, (weight, hot) in enumerate(zip(self.weights, self.multi_hot)):
            ids = values[at:at + batch * hot].view(1, batch, hot)
            at += batch * hot
            out += list(_ext.rowwise_adagrad_backward(weight, getattr(self, f"momentum{t}"), ids, grad_out[t],
                                                      weight.shape[0], self.lr, self.eps))
        return tuple(out)
'''

GELU = r'''# The tanh GELU {what} that `--swap {swap}` puts into workloads/gpt.py (workloads/kernels/gelu_tanh.cu),
# every pass repeated {repeat} time(s). Written by suites/swap/make_candidates.py.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP_SRC = r"""
{cpp}"""

CUDA_SRC = r"""
{cuda}"""

_ext = load_inline(name="headroom_swap_gelu_tanh", cpp_sources=[CPP_SRC], cuda_sources=[CUDA_SRC],
                   functions=["gelu_tanh_forward", "gelu_tanh_backward"],
                   extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"], verbose=False)
REPEAT = {repeat}


class ModelNew(nn.Module):
    def forward(self, {args}):
        return _ext.{function}({args}, REPEAT)
'''


def read(*parts):
    with open(os.path.join(ROOT, *parts)) as f:
        return f.read()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".partial", "w") as f:
        f.write(text)
    os.replace(path + ".partial", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--slow-factor", type=int, default=3)
    a = ap.parse_args()
    if a.slow_factor < 2:
        ap.error("--slow-factor must be at least 2 (1 is the swap itself)")
    solutions = ("suites", "dlrm-bench", "solutions")
    write(os.path.join(a.out, "swap", "dlrm_embedding_forward.py"),
          read(*solutions, "01_embedding_bag_zipf.py") + FORWARD_MODEL)
    write(os.path.join(a.out, "swap", "dlrm_embedding_backward.py"),
          read(*solutions, "04_tbe_backward_rowwise_adagrad.py") + BACKWARD_MODEL)
    write(os.path.join(a.out, "swap", "dlrmv2_cross_forward.py"), read(*solutions, "06_dcnv2_low_rank_cross.py"))
    cpp, cuda = read("workloads", "kernels", "gelu_tanh.cpp"), read("workloads", "kernels", "gelu_tanh.cu")
    for folder, swap, repeat in (("swap", "gelu", 1), (f"swap-slow{a.slow_factor}", "gelu-slow", a.slow_factor)):
        for name, what, function, args in (("gpt_gelu_forward", "forward", "gelu_tanh_forward", "x"),
                                           ("gpt_gelu_backward", "backward", "gelu_tanh_backward", "grad, x")):
            write(os.path.join(a.out, folder, name + ".py"),
                  GELU.format(what=what, swap=swap, repeat=repeat, cpp=cpp, cuda=cuda, function=function, args=args))
    print(f"candidates written under {a.out}: swap/ (5), swap-slow{a.slow_factor}/ (2)")


if __name__ == "__main__":
    sys.exit(main())
