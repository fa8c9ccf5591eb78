# Problem: the tanh approximation of GELU written as its formula (as GPT-2 style models do),
# 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), on 256 x 4096 float32.
import math

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def get_inputs():
    return [torch.randn(256, 4096)]


def get_init_inputs():
    return []
