# Honest candidate for problems/spd_inverse_solve.py (algorithmic): A^-1 b by an LU solve
# (torch.linalg.solve) instead of forming the inverse and multiplying; fewer flops and better
# conditioned.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.A = nn.Parameter(torch.randn(n, n) / n ** 0.5 + 4.0 * torch.eye(n))

    def forward(self, b):
        return torch.linalg.solve(self.A, b)
