# Correct: relu as clamp_min, then the scale and shift the problem passes as plain Python numbers
# (its get_inputs() returns [s, A, k]); they must reach this forward at their positions.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, s, A, k):
        return A.clamp_min(0).mul(s).add(k)
