# Honest candidate for problems/topk_sorted.py (algorithmic): a partial selection of the k largest
# values per row (torch.topk, descending) reversed into ascending order, instead of sorting all 4096.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return torch.topk(x, self.k, dim=1, largest=True, sorted=True).values.flip(1)
