# Honest candidate for problems/manual_softmax.py (library): the hand-written max/exp/sum/divide
# replaced by torch.nn.functional.softmax.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.softmax(x, dim=1)
