# Problem (level-2 style): add a learned bias, ReLU, scale, clamp to [0.25, 3], each its own
# operator, on 256 x 4096 float32.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features, scale, lo, hi):
        super().__init__()
        self.bias = nn.Parameter(0.5 * torch.randn(features))
        self.scale = scale
        self.lo = lo
        self.hi = hi

    def forward(self, x):
        x = x + self.bias
        x = torch.relu(x)
        x = x * self.scale
        x = torch.clamp(x, min=self.lo, max=self.hi)
        return x


def get_inputs():
    return [torch.randn(256, 4096)]


def get_init_inputs():
    return [4096, 2.0, 0.25, 3.0]
