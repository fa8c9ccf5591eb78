# Honest candidate for problems/linear_sum_lse.py (algorithmic): max, mean and logsumexp over a
# singleton axis are the identity, and the sum of a Linear's outputs is x . (column sums of W) plus
# the sum of the bias: one matrix-vector product instead of a 512 x 1024 x 256 GEMM.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        w = self.linear.weight.sum(dim=0)
        return (torch.mv(x, w) + self.linear.bias.sum()).unsqueeze(1)
