# Honest candidate for problems/groupnorm_manual.py (library): torch.nn.functional.group_norm with the
# same groups, weight, bias and eps.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, channels, groups, eps):
        super().__init__()
        self.groups = groups
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(channels))
        self.bias = nn.Parameter(0.1 * torch.randn(channels))

    def forward(self, x):
        return F.group_norm(x, self.groups, self.weight, self.bias, self.eps)
