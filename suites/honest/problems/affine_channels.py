# Problem: a per-channel affine map (a folded batch norm in inference) on 16 x 64 x 32 x 32 float32:
# x * gamma[c] + beta[c], with learned gamma and beta.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.gamma = nn.Parameter(1.0 + 0.1 * torch.randn(channels))
        self.beta = nn.Parameter(0.1 * torch.randn(channels))

    def forward(self, x):
        return x * self.gamma.view(1, -1, 1, 1) + self.beta.view(1, -1, 1, 1)


def get_inputs():
    return [torch.randn(16, 64, 32, 32)]


def get_init_inputs():
    return [64]
