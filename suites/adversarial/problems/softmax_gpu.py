# Row softmax on 4096 x 16384 float32 (256 MiB): a GPU problem with one long reduction per row.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=1)


batch = 4096
dim = 16384


def get_inputs():
    return [torch.rand(batch, dim)]


def get_init_inputs():
    return []
