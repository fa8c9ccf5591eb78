# relu(A) * s + k on 256 x 4096 float32, with the scalars as forward arguments around the tensor, as
# KernelBench's 5_Matrix_scalar_multiplication passes its float: get_inputs() returns [s, A, k].
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, s, A, k):
        return torch.relu(A) * s + k


def get_inputs():
    return [2.5, torch.randn(256, 4096), 3]


def get_init_inputs():
    return []
