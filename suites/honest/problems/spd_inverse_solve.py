# Problem: A^-1 @ b for a well-conditioned 512 x 512 float32 weight A (a random matrix scaled to
# spectral radius about 1, plus 4 I) and a 512 x 64 right-hand side, through the explicit inverse.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.A = nn.Parameter(torch.randn(n, n) / n ** 0.5 + 4.0 * torch.eye(n))

    def forward(self, b):
        return torch.linalg.inv(self.A) @ b


n = 512


def get_inputs():
    return [torch.randn(n, 64)]


def get_init_inputs():
    return [n]
