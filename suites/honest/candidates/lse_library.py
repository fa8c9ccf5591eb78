# Honest candidate for problems/logsumexp_manual.py (library): torch.logsumexp, one operator for the
# stable max-shifted form.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.logsumexp(x, dim=1)
