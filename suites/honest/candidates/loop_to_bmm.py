# Honest candidate for problems/batched_loop_matmul.py (library): one torch.bmm instead of 64 matmul
# calls and a stack.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.bmm(a, b)
