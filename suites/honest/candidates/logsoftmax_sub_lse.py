# Honest candidate for problems/log_softmax.py (exact_math): log_softmax(x) = x - logsumexp(x).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x - torch.logsumexp(x, dim=1, keepdim=True)
