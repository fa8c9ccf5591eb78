# Problem: a batch of 64 independent 128 x 128 float32 matrix products, one matmul per batch entry in
# a Python loop, stacked.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.stack([torch.matmul(a[i], b[i]) for i in range(a.shape[0])])


def get_inputs():
    return [torch.randn(64, 128, 128), torch.randn(64, 128, 128)]


def get_init_inputs():
    return []
