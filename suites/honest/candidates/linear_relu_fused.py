# Honest candidate for problems/linear_add_relu.py (fused_epilogue): both biases added in the GEMM's
# epilogue (addmm with their sum) and ReLU applied in place on the fresh result.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.bias = nn.Parameter(torch.randn(out_features) * 0.1)

    def forward(self, x):
        return torch.addmm(self.gemm.bias + self.bias, x, self.gemm.weight.t()).relu_()
