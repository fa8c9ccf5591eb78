# Honest candidate for problems/linear_add_relu.py (cuda_graph): as linear_relu_graph.py, but each
# call returns a clone of the graph's static output, so the caller owns fresh memory.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.bias = nn.Parameter(torch.randn(out_features) * 0.1)
        self.graph = None
        self.key = None

    def _step(self, x):
        return torch.addmm(self.gemm.bias + self.bias, x, self.gemm.weight.t()).relu_()

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
        return self.static_out.clone()
