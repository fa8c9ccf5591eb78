# Honest candidate for problems/gemm_scale_residual.py (fused_epilogue): y * s + y = (1 + s) y, so
# the scale goes into addmm's alpha and beta: one GEMM with its epilogue, no clone.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scaling_factor):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        f = 1.0 + self.scaling_factor
        return torch.addmm(self.matmul.bias, x, self.matmul.weight.t(), beta=f, alpha=f)
