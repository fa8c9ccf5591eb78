# Problem: layer normalisation over the last axis of 128 x 1024 float32, written out by hand (mean,
# biased variance, normalise, learned scale and shift).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features, eps):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(features))
        self.bias = nn.Parameter(0.1 * torch.randn(features))
        self.eps = eps

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias


def get_inputs():
    return [torch.randn(128, 1024)]


def get_init_inputs():
    return [1024, 1e-5]
