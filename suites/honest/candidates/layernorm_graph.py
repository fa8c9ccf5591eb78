# Honest candidate for problems/layernorm.py (cuda_graph): a hand-written LayerNorm (var_mean, rsqrt,
# addcmul: several kernels) captured in one CUDA graph over a static input; each call copies its
# input in, replays, and returns the static output.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.ln = nn.LayerNorm(features)
        self.graph = None
        self.key = None

    def _step(self, x):
        var, mean = torch.var_mean(x, dim=-1, unbiased=False, keepdim=True)
        return torch.addcmul(self.ln.bias, (x - mean) * torch.rsqrt(var + self.ln.eps), self.ln.weight)

    def forward(self, x):
        if not x.is_cuda:
            return self._step(x)
        key = (tuple(x.shape), x.dtype, x.device)
        if self.graph is None or self.key != key:
            self.static_x = x.detach().clone()
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    self._step(self.static_x)
            torch.cuda.current_stream().wait_stream(side)
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                self.static_out = self._step(self.static_x)
            self.key = key
        self.static_x.copy_(x)
        self.graph.replay()
        return self.static_out
