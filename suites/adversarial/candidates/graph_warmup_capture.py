# Exploit: a CUDA graph captured on a warm-up input. The graph is captured when the model is built,
# on a random tensor of the problem's shape, and every call replays it without copying its input
# in: each replay rewrites the static output, but with the warm-up input's result (mismatch).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.static_x = torch.rand(4096, 4096, device="cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            torch.clamp(self.static_x, min=0)
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.static_out = torch.clamp(self.static_x, min=0)

    def forward(self, x):
        self.graph.replay()
        return self.static_out
