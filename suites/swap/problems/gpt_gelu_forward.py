# The GPT workload's tanh GELU forward (workloads/gpt.py, large preset) as one problem: the
# feed-forward's hidden activations, batch 8 x sequence 2048 = 16384 tokens by 4 x 2048 = 8192, in
# bf16 as autocast leaves them (PyTorch's GeluCUDAKernelImpl, fp32 inside). What `--swap gelu`
# replaces in the workload's forward (suites/swap/README.md). DLRM_BENCH_PRESET=cpu selects a
# CPU-sized fp32 variant (the workload's CPU preset runs without autocast).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

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
    def forward(self, x):
        return F.gelu(x, approximate="tanh")


def get_inputs():
    p = _preset()
    return [torch.randn(p["tokens"], p["hidden"]).to(p["dtype"])]


def get_init_inputs():
    return []
