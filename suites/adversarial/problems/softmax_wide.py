# Softmax over rows of 32768 elements: every output is about 1/32768 (< 1e-4), so an all-zeros
# output passes torch.allclose with atol 1e-2 (KernelBench v0/v0.1) and even atol 1e-4.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=1)


batch = 32
dim = 32768


def get_inputs():
    return [torch.rand(batch, dim)]


def get_init_inputs():
    return []
