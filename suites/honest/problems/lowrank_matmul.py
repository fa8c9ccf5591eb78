# Problem: x @ (U @ V), a rank-32 weight (1024 x 32 times 32 x 1024) materialised on every call
# before it is applied to a 256 x 1024 float32 batch.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features, rank):
        super().__init__()
        self.U = nn.Parameter(torch.randn(features, rank) / rank ** 0.5)
        self.V = nn.Parameter(torch.randn(rank, features) / features ** 0.5)

    def forward(self, x):
        weight = self.U @ self.V
        return x @ weight


batch = 256
features = 1024
rank = 32


def get_inputs():
    return [torch.randn(batch, features)]


def get_init_inputs():
    return [features, rank]
