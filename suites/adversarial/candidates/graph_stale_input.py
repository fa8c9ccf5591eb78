# Exploit: a CUDA graph replayed without copying the new input in. The graph is captured on the first
# call's input, copied into a static buffer once; every later call replays it as it is, so the
# output is the first call's result, rewritten by the replay into the graph's static output. The
# memory is rewritten (no fill pattern is left), but the values belong to another input: the trials'
# next inputs show it (mismatch).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.graph = None

    def forward(self, x):
        if self.graph is None:
            self.static_x = x.clone()
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                torch.clamp(self.static_x, min=0)
            torch.cuda.current_stream().wait_stream(side)
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                self.static_out = torch.clamp(self.static_x, min=0)
        self.graph.replay()  # static_x still holds the first call's input
        return self.static_out
