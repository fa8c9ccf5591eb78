# Honest candidate for problems/frobenius_normalize.py (exact_math): one reduction of x * x, its
# reciprocal square root, and a multiply instead of a division of every element.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * torch.rsqrt((x * x).sum())
