# Honest candidate for problems/swish_bias.py (fused_epilogue): F.silu (one operator for x *
# sigmoid(x)) with the bias added in place on its result.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.bias = nn.Parameter(0.1 * torch.randn(features))

    def forward(self, x):
        return F.silu(x).add_(self.bias)
