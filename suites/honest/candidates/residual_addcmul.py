# Honest candidate for problems/residual_gate.py (fused_epilogue): x + 0.5 * y * z in one pass with
# torch.addcmul.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y, z):
        return torch.addcmul(x, y, z, value=0.5)
