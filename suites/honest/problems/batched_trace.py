# Problem: trace(A_i @ B_i) for a batch of 32 pairs of 256 x 256 float32 matrices, taken from the
# full batched product.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.diagonal(torch.bmm(A, B), dim1=1, dim2=2).sum(dim=-1)


def get_inputs():
    return [torch.randn(32, 256, 256), torch.randn(32, 256, 256)]


def get_init_inputs():
    return []
