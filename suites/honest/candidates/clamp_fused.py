# Honest candidate for problems/bias_relu_scale_clamp.py (fused_epilogue): with scale > 0 and a lower
# clamp bound >= 0, ReLU is absorbed by the clamp: clamp((x + bias) * scale, lo, hi), the bias add
# done in place on the one intermediate.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, features, scale, lo, hi):
        super().__init__()
        assert scale > 0 and lo >= 0
        self.bias = nn.Parameter(0.5 * torch.randn(features))
        self.scale = scale
        self.lo = lo
        self.hi = hi

    def forward(self, x):
        return (x + self.bias).mul_(self.scale).clamp_(self.lo, self.hi)
