# Problem (level-2 style): x @ W^T, then the bias added, then GELU (erf form), each its own operator;
# 128 x 1024 by 1024 x 512 float32.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = torch.matmul(x, self.linear.weight.t())
        x = x + self.linear.bias
        return F.gelu(x)


def get_inputs():
    return [torch.randn(128, 1024)]


def get_init_inputs():
    return [1024, 512]
