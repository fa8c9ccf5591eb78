# Honest candidate for problems/softmax.py (exact_math): softmax as exp(x - logsumexp(x)), one
# normalising constant per row and no division.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.exp(x - torch.logsumexp(x, dim=1, keepdim=True))
