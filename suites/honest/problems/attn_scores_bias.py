# Problem: attention scores with an additive bias, q k^T * scale + bias, for 16 heads of 128 x 64
# float32 queries and keys (bias 16 x 128 x 128).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, head_dim):
        super().__init__()
        self.scale = head_dim ** -0.5

    def forward(self, q, k, bias):
        return torch.bmm(q, k.transpose(1, 2)) * self.scale + bias


def get_inputs():
    return [torch.randn(16, 128, 64), torch.randn(16, 128, 64), torch.randn(16, 128, 128)]


def get_init_inputs():
    return [64]
