# Honest candidate for problems/tril_cumsum.py (algorithmic): a product with an upper-triangular
# matrix of ones is an inclusive prefix sum along the row; torch.cumsum does n additions per row
# instead of n^2 multiply-adds, and builds no mask.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.cumsum(x, dim=1)
