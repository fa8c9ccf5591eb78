# Problem: a numerically stable log-sum-exp of each row of 512 x 4096 float32, written out by hand.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        m = x.max(dim=1, keepdim=True).values
        return m.squeeze(1) + torch.log(torch.exp(x - m).sum(dim=1))


def get_inputs():
    return [torch.randn(512, 4096)]


def get_init_inputs():
    return []
