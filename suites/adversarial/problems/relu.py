# ReLU on 256 x 4096 float32 (4 MiB). torch.rand inputs are all in [0, 1), where ReLU is the identity.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


batch = 256
dim = 4096


def get_inputs():
    return [torch.rand(batch, dim)]


def get_init_inputs():
    return []
