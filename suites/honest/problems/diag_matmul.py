# Problem: diag(A) @ B, written as a full matrix product with the diagonal matrix materialised
# (512 x 512 float32, 1 MiB per operand). The output depends on both inputs; the work a correct
# kernel must do is a row scaling.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.diag(A) @ B


N = 512
M = 512


def get_inputs():
    return [torch.randn(N), torch.randn(N, M)]


def get_init_inputs():
    return []
