# DLRM-Bench 05: DLRM's dot interaction (facebookresearch/dlrm interact_features, "dot"), bf16.
# T = [x, ly_1 .. ly_26] per sample (27 x 128), Z = T T^T, and the output is x followed by the
# strict lower triangle of Z in dlrm_s_pytorch's order: (i, j) for i = 1..26, j = 0..i-1, i.e. column
# 128 + i(i-1)/2 + j. 16384 samples (the MLPerf DLRM test batch), D = 128 (DLRM v1 on Terabyte).
# Shapes and the trap list: suites/dlrm-bench/README.md; metadata: 05_dot_interaction.toml.
# DLRM_BENCH_PRESET=cpu selects the CPU-sized variant.
import os

import torch
import torch.nn as nn

PRESETS = {
    "large": dict(batch=16384, num_sparse=26, dim=128),
    "cpu": dict(batch=64, num_sparse=26, dim=128),
}


def _preset():
    name = os.environ.get("DLRM_BENCH_PRESET", "large")
    if name not in PRESETS:
        raise ValueError("DLRM_BENCH_PRESET=%r: expected one of %s" % (name, sorted(PRESETS)))
    return PRESETS[name]


class Model(nn.Module):
    def __init__(self, num_sparse):
        super().__init__()
        n = num_sparse + 1
        self.register_buffer("li", torch.tensor([i for i in range(n) for j in range(i)], dtype=torch.long))
        self.register_buffer("lj", torch.tensor([j for i in range(n) for j in range(i)], dtype=torch.long))

    def forward(self, x, ly):
        t = torch.cat([x.unsqueeze(1), ly], dim=1)
        z = torch.bmm(t, t.transpose(1, 2))
        return torch.cat([x, z[:, self.li, self.lj]], dim=1)


def get_inputs():
    p = _preset()
    scale = p["dim"] ** -0.25  # entries of Z of order 1
    return [torch.randn(p["batch"], p["dim"]).mul_(scale).to(torch.bfloat16),
            torch.randn(p["batch"], p["num_sparse"], p["dim"]).mul_(scale).to(torch.bfloat16)]


def get_init_inputs():
    return [_preset()["num_sparse"]]
