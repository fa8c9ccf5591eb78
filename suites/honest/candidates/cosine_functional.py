# Honest candidate for problems/cosine_loss_manual.py (library): torch.nn.functional.cosine_similarity
# in place of the hand-written dot product over norms.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.mean(1 - F.cosine_similarity(a, b, dim=1))
