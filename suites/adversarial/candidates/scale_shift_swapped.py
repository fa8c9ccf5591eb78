# Wrong: the scalar arguments used the other way round (k as the scale, s as the shift). The check
# must see it, so the scalars reach the candidate with their values and at their positions.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, s, A, k):
        return A.clamp_min(0).mul(k).add(s)
