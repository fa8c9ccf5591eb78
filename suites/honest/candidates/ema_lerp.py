# Honest candidate for problems/ema_lerp.py (fused_epilogue): a + w (b - a) is torch.lerp, one pass
# over the two inputs.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, weight):
        super().__init__()
        self.weight = weight

    def forward(self, a, b):
        return torch.lerp(a, b, self.weight)
