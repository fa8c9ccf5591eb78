# Problem: trace(A_i @ B_i) for a batch of 16 pairs of 192 x 192 float32 matrices, taken from the
# full batched product.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.diagonal(torch.bmm(A, B), dim1=1, dim2=2).sum(dim=-1)


def get_inputs():
    return [torch.randn(16, 192, 192), torch.randn(16, 192, 192)]


def get_init_inputs():
    return []
