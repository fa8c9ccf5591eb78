# Problem (level-2 style): nn.Linear, then x * scale added back to an unscaled copy of itself;
# 256 x 1024 by 1024 x 512 float32.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, scaling_factor):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = self.matmul(x)
        original_x = x.clone().detach()
        x = x * self.scaling_factor
        x = x + original_x
        return x


def get_inputs():
    return [torch.randn(256, 1024)]


def get_init_inputs():
    return [1024, 512, 0.5]
