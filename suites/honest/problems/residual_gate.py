# Problem: a gated residual update x + 0.5 * y * z on three 256 x 4096 float32 tensors.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y, z):
        return x + 0.5 * y * z


def get_inputs():
    return [torch.randn(256, 4096), torch.randn(256, 4096), torch.randn(256, 4096)]


def get_init_inputs():
    return []
