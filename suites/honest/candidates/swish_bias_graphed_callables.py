# Honest candidate for problems/swish_bias.py (cuda_graph): SiLU plus bias as a small module turned
# into a graphed callable (torch.cuda.make_graphed_callables) on the first call; each later call
# replays its graph on the call's input.
import torch
import torch.nn as nn
import torch.nn.functional as F


class _SwishBias(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.bias = nn.Parameter(0.1 * torch.randn(features))

    def forward(self, x):
        return F.silu(x) + self.bias


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.block = _SwishBias(features)
        self.graphed_for = None

    def forward(self, x):
        if not x.is_cuda:
            return _SwishBias.forward(self.block, x)
        key = (tuple(x.shape), x.dtype, x.device)
        if self.graphed_for is None:
            with torch.enable_grad():
                torch.cuda.make_graphed_callables(self.block, (x.detach().clone(),))
            self.graphed_for = key
        if key != self.graphed_for:
            return _SwishBias.forward(self.block, x)
        return self.block(x)
