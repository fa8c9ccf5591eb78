# Honest candidate for problems/gemm_div_sum_scale.py (algorithmic): sum_j (x W^T)_ij = x (sum_j W_j),
# so the reduction is folded into the weight: one matrix-vector product with the column sums of W,
# and the /2 and the scale applied to the 256 results.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, scaling_factor):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden_size, input_size) * 0.05)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        w = self.weight.sum(dim=0)
        return torch.mv(x, w).unsqueeze(1) * (0.5 * self.scaling_factor)
