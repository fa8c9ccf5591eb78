# Honest candidate for problems/diag_matmul.py (library): the row scaling stated as an einsum,
# "i,ij->ij", which never forms the diagonal matrix.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.einsum("i,ij->ij", A, B)
