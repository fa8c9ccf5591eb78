# Honest candidate for problems/swish.py (out_buffer): sigmoid written into a persistent buffer with
# out=, then multiplied by x in place; the buffer is returned (the same memory every call).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.buf = None

    def forward(self, x):
        if self.buf is None or self.buf.shape != x.shape or self.buf.device != x.device:
            self.buf = torch.empty_like(x)
        torch.sigmoid(x, out=self.buf)
        return self.buf.mul_(x)
