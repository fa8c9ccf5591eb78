# Honest candidate for problems/softplus.py (exact_math): softplus in the overflow-free form
# max(x, 0) + log1p(exp(-|x|)), equal in float32 to the library's thresholded one.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.clamp(x, min=0) + torch.log1p(torch.exp(-x.abs()))
