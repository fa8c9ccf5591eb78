# Problem: a batched matrix product, 32 x (128 x 64) @ (64 x 128) float32, then a scale.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, a, b):
        return torch.bmm(a, b) * self.scale


def get_inputs():
    return [torch.randn(32, 128, 64), torch.randn(32, 64, 128)]


def get_init_inputs():
    return [0.125]
