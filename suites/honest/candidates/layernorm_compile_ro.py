# Honest candidate for problems/layernorm_manual.py (compile): the same hand-written LayerNorm handed
# to torch.compile(mode="reduce-overhead"): Inductor fuses it into one kernel and replays it through
# CUDA graphs (the output lives in the graph's memory pool).
import torch
import torch.nn as nn


def _layer_norm(x, weight, bias, eps: float):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) * torch.rsqrt(var + eps) * weight + bias


_compiled = torch.compile(_layer_norm, mode="reduce-overhead", dynamic=False)


class ModelNew(nn.Module):
    def __init__(self, features, eps):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(features))
        self.bias = nn.Parameter(0.1 * torch.randn(features))
        self.eps = eps

    def forward(self, x):
        if hasattr(torch, "compiler") and hasattr(torch.compiler, "cudagraph_mark_step_begin"):
            torch.compiler.cudagraph_mark_step_begin()
        return _compiled(x, self.weight, self.bias, self.eps)
