# Honest candidate for problems/tril_cumsum.py (out_buffer): the prefix sum (what the triangular
# product computes) written with torch.cumsum(out=) into a buffer the module allocates once.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.buf = None

    def forward(self, x):
        if self.buf is None or self.buf.shape != x.shape or self.buf.device != x.device:
            self.buf = torch.empty_like(x)
        torch.cumsum(x, dim=1, out=self.buf)
        return self.buf
