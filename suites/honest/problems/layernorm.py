# Problem: nn.LayerNorm over the last axis of 128 x 1024 float32.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.ln = nn.LayerNorm(features)

    def forward(self, x):
        return self.ln(x)


def get_inputs():
    return [torch.randn(128, 1024)]


def get_init_inputs():
    return [1024]
