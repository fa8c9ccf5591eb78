# Honest candidate for problems/l2_normalize.py (library): torch.nn.functional.normalize (p = 2 over
# dim 1; its eps only matters for an all-zero row).
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.normalize(x, p=2.0, dim=1)
