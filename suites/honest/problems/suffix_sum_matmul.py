# Problem: suffix sums along each row (y[:, j] = sum of x[:, j:]) of a 256 x 1024 float32 matrix,
# computed by the reference as a product with a lower-triangular matrix of ones.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n = x.shape[1]
        lower = torch.tril(torch.ones(n, n, dtype=x.dtype, device=x.device))
        return torch.matmul(x, lower)


rows = 256
cols = 1024


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
