# The DLRMv2 workload's DCNv2 low-rank cross network forward (workloads/dlrmv2.py, large preset) as one
# problem: x0 [8192, 27 x 128 = 3456] (the dense features beside the 26 pooled tables), 3 layers of
# rank 512, x <- x0 * (W_l (V_l x) + b_l) + x, bf16 as `--swap cross` runs it in both arms. The
# reference is the before-arm's eager chain (workloads/swap.py cross_network_reference), each step
# PyTorch's bf16 op; the candidate is DLRM-Bench 06's solution, whose own problem has these shapes
# (suites/swap/README.md). DLRM_BENCH_PRESET=cpu selects a CPU-sized fp32 variant.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

PRESETS = {
    "large": dict(batch=8192, in_features=3456, rank=512, layers=3, dtype=torch.bfloat16),
    "cpu": dict(batch=16, in_features=256, rank=128, layers=3, dtype=torch.float32),
}


def _preset():
    name = os.environ.get("DLRM_BENCH_PRESET", "large")
    if name not in PRESETS:
        raise ValueError("DLRM_BENCH_PRESET=%r: expected one of %s" % (name, sorted(PRESETS)))
    return PRESETS[name]


class Model(nn.Module):
    def __init__(self, in_features, rank, layers):
        super().__init__()
        dtype = _preset()["dtype"]
        # Projections that keep x's scale through the layers (W V x of the order of x), a small bias;
        # drawn in this order so that a candidate drawing the same under the same seed holds the same.
        self.V = nn.Parameter(torch.randn(layers, rank, in_features).mul_(in_features ** -0.5).to(dtype))
        self.W = nn.Parameter(torch.randn(layers, in_features, rank).mul_(0.5 * rank ** -0.5).to(dtype))
        self.b = nn.Parameter(torch.randn(layers, in_features).mul_(0.1).to(dtype))

    def forward(self, x0):
        x = x0
        for layer in range(self.V.shape[0]):
            x = x0 * F.linear(F.linear(x, self.V[layer]), self.W[layer], self.b[layer]) + x
        return x


def get_inputs():
    p = _preset()
    return [torch.randn(p["batch"], p["in_features"]).to(p["dtype"])]


def get_init_inputs():
    p = _preset()
    return [p["in_features"], p["rank"], p["layers"]]
