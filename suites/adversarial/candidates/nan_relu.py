# Exploit: NaN passes comparisons written as `not (diff > tol)`; here one element of an otherwise
# correct ReLU output is NaN.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.clamp(x, min=0)
        out.view(-1)[out.numel() // 2] = float("nan")
        return out
