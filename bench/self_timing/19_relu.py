import torch
import torch.nn as nn


class Model(nn.Module):
    """KernelBench level 1's 19_ReLU at a size the CPU runs in milliseconds."""

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(16, 262144)]


def get_init_inputs():
    return []
