# Correct for any s: the problem (problems/scale_by_seed.py) is what cannot be judged.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, s):
        return torch.mul(A, s)
