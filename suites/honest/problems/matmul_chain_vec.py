# Problem: (A @ B) @ v for square 512 x 512 float32 matrices and a vector of 512: the reference
# forms the full matrix product before applying it to the vector.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B, v):
        return torch.matmul(torch.matmul(A, B), v)


N = 512


def get_inputs():
    return [torch.randn(N, N), torch.randn(N, N), torch.randn(N)]


def get_init_inputs():
    return []
