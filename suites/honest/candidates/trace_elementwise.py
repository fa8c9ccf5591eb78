# Honest candidate for problems/batched_trace.py (algorithmic): trace(A B) = sum_ij A_ij B_ji, an
# elementwise product with B transposed and one reduction: n^2 multiply-adds per pair instead of n^3.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return (A * B.transpose(1, 2)).sum(dim=(1, 2))
