# Honest candidate for problems/gemm_bias_gelu.py (fused_epilogue): the bias folded into the GEMM
# (addmm) and GELU (the same erf form) applied to its result in one expression.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return F.gelu(torch.addmm(self.linear.bias, x, self.linear.weight.t()))
