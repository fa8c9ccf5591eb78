# Trap (wrong recurrence): the residual taken from x0 instead of x_l, a slip that layer 0 cannot show
# (x_0 = x0). Must be rejected.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, in_features, rank, layers):
        super().__init__()
        self.V = nn.Parameter(torch.randn(layers, rank, in_features).mul_(in_features ** -0.5).to(torch.bfloat16))
        self.W = nn.Parameter(torch.randn(layers, in_features, rank).mul_(0.5 * rank ** -0.5).to(torch.bfloat16))
        self.b = nn.Parameter(torch.randn(layers, in_features).mul_(0.1).to(torch.bfloat16))

    def forward(self, x0):
        xl = x0
        for layer in range(self.V.shape[0]):
            xl = x0 * F.linear(F.linear(xl, self.V[layer]), self.W[layer], self.b[layer]) + x0
        return xl
