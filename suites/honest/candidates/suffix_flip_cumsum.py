# Honest candidate for problems/suffix_sum_matmul.py (algorithmic): the product with a
# lower-triangular matrix of ones is a suffix sum, computed as a prefix sum of the reversed row,
# reversed back.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.flip(torch.cumsum(torch.flip(x, dims=[1]), dim=1), dims=[1])
