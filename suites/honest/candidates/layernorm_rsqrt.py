# Honest candidate for problems/layernorm.py (exact_math): LayerNorm by hand with torch.var_mean
# (biased, one pass) and rsqrt, the weight and bias applied with addcmul.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.ln = nn.LayerNorm(features)

    def forward(self, x):
        var, mean = torch.var_mean(x, dim=-1, unbiased=False, keepdim=True)
        xhat = (x - mean) * torch.rsqrt(var + self.ln.eps)
        return torch.addcmul(self.ln.bias, xhat, self.ln.weight)
