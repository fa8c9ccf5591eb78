# A * s where get_inputs() draws the float s itself, so s changes with the seed. headroom passes one
# set of non-tensor arguments to every call of the candidate, so it cannot judge this problem on
# several seeds: a reference_error that says why, never a verdict on other values than the reference's.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, s):
        return A * s


def get_inputs():
    return [torch.randn(64, 64), float(torch.rand(()))]


def get_init_inputs():
    return []
