# Honest candidate for problems/gemm_bias_gelu.py (cuda_graph): the GEMM + bias + GELU block made a
# graphed callable with torch.cuda.make_graphed_callables on the first call (with autograd enabled
# for the capture, which also records the backward); later calls replay the forward graph, which
# copies the new input into its static input.
import torch
import torch.nn as nn
import torch.nn.functional as F


class _GemmGelu(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return F.gelu(torch.addmm(self.linear.bias, x, self.linear.weight.t()))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.block = _GemmGelu(in_features, out_features)
        self.graphed_for = None

    def forward(self, x):
        if not x.is_cuda:
            return _GemmGelu.forward(self.block, x)
        key = (tuple(x.shape), x.dtype, x.device)
        if self.graphed_for is None:
            with torch.enable_grad():
                torch.cuda.make_graphed_callables(self.block, (x.detach().clone(),))
            self.graphed_for = key
        if key != self.graphed_for:
            return _GemmGelu.forward(self.block, x)  # graphed for one shape only
        return self.block(x)
