# Honest candidate for problems/rmsnorm.py (exact_math): x * rsqrt(mean(x^2) + eps): one reciprocal
# square root per position and a multiply, instead of sqrt and a division of every element.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, num_features, eps=1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.square().mean(dim=1, keepdim=True) + self.eps)
