# DLRM-Bench 06: DCNv2 low-rank cross network (TorchRec LowRankCrossNet), MLPerf DLRMv2's
# interaction: 3 layers over x0 = [B, 27 * 128 = 3456], rank 512, bf16, B = 8192 (a 65536 global
# batch over 8 GPUs):  x_{l+1} = x0 * (W_l (V_l x_l) + b_l) + x_l.
# Each step is PyTorch's bf16 op and rounds to bf16 as eager does: V_l x_l, then W_l(.) + b_l, then
# the product with x0, then the sum with x_l. Shapes and the trap list: suites/dlrm-bench/README.md;
# metadata: 06_dcnv2_low_rank_cross.toml. DLRM_BENCH_PRESET=cpu selects the CPU-sized variant.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

PRESETS = {
    "large": dict(batch=8192, in_features=3456, rank=512, layers=3),
    "cpu": dict(batch=32, in_features=384, rank=64, layers=3),
}


def _preset():
    name = os.environ.get("DLRM_BENCH_PRESET", "large")
    if name not in PRESETS:
        raise ValueError("DLRM_BENCH_PRESET=%r: expected one of %s" % (name, sorted(PRESETS)))
    return PRESETS[name]


class Model(nn.Module):
    def __init__(self, in_features, rank, layers):
        super().__init__()
        # Variance-preserving projections (W V x keeps the scale of x), a small bias.
        self.V = nn.Parameter(torch.randn(layers, rank, in_features).mul_(in_features ** -0.5).to(torch.bfloat16))
        self.W = nn.Parameter(torch.randn(layers, in_features, rank).mul_(0.5 * rank ** -0.5).to(torch.bfloat16))
        self.b = nn.Parameter(torch.randn(layers, in_features).mul_(0.1).to(torch.bfloat16))

    def forward(self, x0):
        xl = x0
        for layer in range(self.V.shape[0]):
            xl = x0 * F.linear(F.linear(xl, self.V[layer]), self.W[layer], self.b[layer]) + xl
        return xl


def get_inputs():
    p = _preset()
    return [torch.randn(p["batch"], p["in_features"], dtype=torch.bfloat16)]


def get_init_inputs():
    p = _preset()
    return [p["in_features"], p["rank"], p["layers"]]
