# Problem: group normalisation (8 groups of 8 channels) of 16 x 64 x 16 x 16 float32, written out by
# hand, with learned per-channel scale and shift.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels, groups, eps):
        super().__init__()
        self.groups = groups
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(channels))
        self.bias = nn.Parameter(0.1 * torch.randn(channels))

    def forward(self, x):
        n, c, h, w = x.shape
        g = x.view(n, self.groups, -1)
        mean = g.mean(dim=-1, keepdim=True)
        var = g.var(dim=-1, unbiased=False, keepdim=True)
        g = (g - mean) / torch.sqrt(var + self.eps)
        x = g.view(n, c, h, w)
        return x * self.weight.view(1, c, 1, 1) + self.bias.view(1, c, 1, 1)


def get_inputs():
    return [torch.randn(16, 64, 16, 16)]


def get_init_inputs():
    return [64, 8, 1e-5]
