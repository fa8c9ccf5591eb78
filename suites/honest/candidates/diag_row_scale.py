# Honest candidate for problems/diag_matmul.py (algorithmic): diag(A) @ B is B with row i scaled by
# A[i]; a broadcast multiply reads each input once instead of forming an N x N matrix and an N^3
# product.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return A.unsqueeze(1) * B
