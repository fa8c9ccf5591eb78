# Honest candidate for problems/matmul_chain_vec.py (algorithmic): (A @ B) @ v = A @ (B @ v); two
# matrix-vector products (2 N^2 multiply-adds) instead of a matrix product (N^3) and one.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B, v):
        return A @ (B @ v)
