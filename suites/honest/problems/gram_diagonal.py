# Problem: the diagonal of each Gram matrix x x^T of a batch of 8 x 256 x 256 float32 matrices (the
# squared norm of every row), taken from the full 8 x 256 x 256 batched product.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        gram = torch.bmm(x, x.transpose(1, 2))
        return torch.diagonal(gram, dim1=1, dim2=2)


def get_inputs():
    return [torch.randn(8, 256, 256)]


def get_init_inputs():
    return []
