# The GPT workload's tanh GELU backward (workloads/gpt.py, large preset) as one problem: the gradient
# through the feed-forward's activation, 16384 tokens by 8192, bf16 (PyTorch's
# GeluBackwardCUDAKernelImpl, fp32 inside). What `--swap gelu` replaces in the workload's backward
# (suites/swap/README.md). DLRM_BENCH_PRESET=cpu selects a CPU-sized fp32 variant.
import os

import torch
import torch.nn as nn

PRESETS = {
    "large": dict(tokens=16384, hidden=8192, dtype=torch.bfloat16),
    "cpu": dict(tokens=64, hidden=256, dtype=torch.float32),
}


def _preset():
    name = os.environ.get("DLRM_BENCH_PRESET", "large")
    if name not in PRESETS:
        raise ValueError("DLRM_BENCH_PRESET=%r: expected one of %s" % (name, sorted(PRESETS)))
    return PRESETS[name]


class Model(nn.Module):
    def forward(self, grad, x):
        return torch.ops.aten.gelu_backward(grad, x, approximate="tanh")


def get_inputs():
    p = _preset()
    return [torch.randn(p["tokens"], p["hidden"]).to(p["dtype"]), torch.randn(p["tokens"], p["hidden"]).to(p["dtype"])]


def get_init_inputs():
    return []
