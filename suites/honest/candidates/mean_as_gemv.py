# Honest candidate for problems/row_mean.py (exact_math): the row means as one matrix-vector product
# with a vector of 1/n (exact for n = 4096, a power of two), a reordered float32 reduction.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n = x.shape[1]
        return torch.mv(x, torch.full((n,), 1.0 / n, dtype=x.dtype, device=x.device))
