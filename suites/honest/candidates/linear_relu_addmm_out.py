# Honest candidate for problems/linear_add_relu.py (out_buffer): the two biases summed, one addmm
# written into an output buffer the module owns, ReLU applied in place. The same memory is returned
# on every call, rewritten with that call's result.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.bias = nn.Parameter(torch.randn(out_features) * 0.1)
        self.out = None

    def forward(self, x):
        shape = (x.shape[0], self.gemm.out_features)
        if self.out is None or self.out.shape != shape or self.out.device != x.device:
            self.out = torch.empty(shape, dtype=x.dtype, device=x.device)
        torch.addmm(self.gemm.bias + self.bias, x, self.gemm.weight.t(), out=self.out)
        return self.out.relu_()
