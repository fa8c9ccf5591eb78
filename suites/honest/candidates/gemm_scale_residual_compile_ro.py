# Honest candidate for problems/gemm_scale_residual.py (compile): the Linear with (1 + s) folded into
# it, compiled with torch.compile(mode="reduce-overhead") (CUDA graphs); the result is cloned out of
# the graph's memory pool before it is returned.
import torch
import torch.nn as nn
import torch.nn.functional as F


def _forward(x, weight, bias, factor: float):
    return F.linear(x, weight, bias) * factor


_compiled = torch.compile(_forward, mode="reduce-overhead", dynamic=False)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scaling_factor):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        if hasattr(torch, "compiler") and hasattr(torch.compiler, "cudagraph_mark_step_begin"):
            torch.compiler.cudagraph_mark_step_begin()
        return _compiled(x, self.matmul.weight, self.matmul.bias, 1.0 + self.scaling_factor).clone()
