# The right answer to a degenerate problem without reading the inputs: zeros of the output's shape.
# Correct on every trial, and a huge "speedup" that measures nothing: the harness must say so
# (degenerate_problem) and keep it out of every figure.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.zeros(x.shape[0], 1, dtype=x.dtype, device=x.device)
