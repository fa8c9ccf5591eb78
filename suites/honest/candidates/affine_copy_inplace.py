# Honest candidate for problems/affine_channels.py (out_buffer): the input copied into a persistent
# buffer (copy_), then scaled and shifted in place; the buffer is returned on every call.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.gamma = nn.Parameter(1.0 + 0.1 * torch.randn(channels))
        self.beta = nn.Parameter(0.1 * torch.randn(channels))
        self.buf = None

    def forward(self, x):
        if self.buf is None or self.buf.shape != x.shape or self.buf.device != x.device:
            self.buf = torch.empty_like(x)
        self.buf.copy_(x)
        self.buf.mul_(self.gamma.view(1, -1, 1, 1)).add_(self.beta.view(1, -1, 1, 1))
        return self.buf
