# Honest candidate for problems/variance.py (exact_math): the two-pass variance, sum((x - mean)^2)
# / (n - 1), which stays accurate for shifted inputs.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        d = x - x.mean(dim=1, keepdim=True)
        return (d * d).sum(dim=1) / (x.shape[1] - 1)
