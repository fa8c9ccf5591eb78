# Honest candidate for problems/elu_where.py (exact_math): torch.nn.functional.elu, which computes the
# negative branch with expm1 (more accurate than exp(x) - 1 near zero) in one pass.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, alpha):
        super().__init__()
        self.alpha = alpha

    def forward(self, x):
        return F.elu(x, alpha=self.alpha)
