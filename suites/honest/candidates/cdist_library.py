# Honest candidate for problems/pairwise_dist.py (library): torch.cdist, which for these sizes uses
# the |x|^2 + |y|^2 - 2 x.y expansion (a matrix product) instead of a 16 MiB broadcast difference.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.cdist(x, y, p=2.0)
