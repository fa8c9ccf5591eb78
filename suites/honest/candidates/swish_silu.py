# Honest candidate for problems/swish.py (library): torch.nn.functional.silu, x * sigmoid(x) in one
# operator.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.silu(x)
