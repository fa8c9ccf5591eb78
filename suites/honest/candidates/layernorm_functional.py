# Honest candidate for problems/layernorm_manual.py (library): the hand-written normalisation
# replaced by torch.nn.functional.layer_norm with the same weight, bias and eps.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, features, eps):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(features))
        self.bias = nn.Parameter(0.1 * torch.randn(features))
        self.eps = eps

    def forward(self, x):
        return F.layer_norm(x, (x.shape[-1],), self.weight, self.bias, self.eps)
