# Honest candidate for problems/gram_diagonal.py (algorithmic): the diagonal of x x^T holds the
# squared norms of the rows of x; computed directly, without the other 255 of every 256 dot
# products.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return (x * x).sum(dim=-1)
