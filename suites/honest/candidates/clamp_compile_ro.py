# Honest candidate for problems/bias_relu_scale_clamp.py (compile): the reference's own chain (bias,
# ReLU, scale, clamp) as a module compiled with torch.compile(mode="reduce-overhead"): one fused
# elementwise kernel replayed through a CUDA graph.
import torch
import torch.nn as nn


class _Chain(nn.Module):
    def __init__(self, features, scale, lo, hi):
        super().__init__()
        self.bias = nn.Parameter(0.5 * torch.randn(features))
        self.scale = scale
        self.lo = lo
        self.hi = hi

    def forward(self, x):
        return torch.clamp(torch.relu(x + self.bias) * self.scale, min=self.lo, max=self.hi)


class ModelNew(nn.Module):
    def __init__(self, features, scale, lo, hi):
        super().__init__()
        self.chain = _Chain(features, scale, lo, hi)
        self.compiled = torch.compile(self.chain, mode="reduce-overhead", dynamic=False)

    def forward(self, x):
        if hasattr(torch, "compiler") and hasattr(torch.compiler, "cudagraph_mark_step_begin"):
            torch.compiler.cudagraph_mark_step_begin()
        return self.compiled(x)
