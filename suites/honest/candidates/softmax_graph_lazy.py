# Honest candidate for problems/manual_softmax.py (cuda_graph): one CUDA graph per input shape, kept
# in a dict and captured on the first call with that shape (amax, subtract, exp, sum, divide); each
# call copies its input into the graph's static input and replays it.
import torch
import torch.nn as nn


def _softmax_rows(x):
    e = torch.exp(x - x.amax(dim=1, keepdim=True))
    return e / e.sum(dim=1, keepdim=True)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.graphs = {}

    def _capture(self, x):
        static_x = x.detach().clone()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                _softmax_rows(static_x)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_out = _softmax_rows(static_x)
        return graph, static_x, static_out

    def forward(self, x):
        if not x.is_cuda:
            return _softmax_rows(x)
        key = (tuple(x.shape), x.dtype, x.device)
        if key not in self.graphs:
            self.graphs[key] = self._capture(x)
        graph, static_x, static_out = self.graphs[key]
        static_x.copy_(x)
        graph.replay()
        return static_out
