# ReLU on 4096 x 4096 float32 (64 MiB in, 64 MiB out): a memory-bound GPU problem.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


batch = 4096
dim = 4096


def get_inputs():
    return [torch.rand(batch, dim)]


def get_init_inputs():
    return []
