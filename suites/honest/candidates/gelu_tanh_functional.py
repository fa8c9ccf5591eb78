# Honest candidate for problems/gelu_tanh_formula.py (exact_math): the reference's tanh formula is
# torch.nn.functional.gelu(approximate="tanh"), one operator (the same formula, not the erf GELU).
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.gelu(x, approximate="tanh")
