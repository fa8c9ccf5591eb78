# Honest candidate for problems/cross_entropy_manual.py (library): torch.nn.functional.cross_entropy
# (mean reduction) in place of logsumexp, gather and mean.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, target):
        return F.cross_entropy(logits, target)
