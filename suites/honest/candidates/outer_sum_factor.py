# Honest candidate for problems/outer_product_sum.py (algorithmic): the sum of the entries of an
# outer product x y^T is (sum x)(sum y); two row sums and a product, no 18 MiB intermediate.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x.sum(dim=1) * y.sum(dim=1)
