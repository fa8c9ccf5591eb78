# Honest candidate for problems/bmm_scale.py (out_buffer): the scale folded into baddbmm's alpha
# (beta = 0, so the buffer's old contents are ignored) written into a buffer the module keeps.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale
        self.buf = None

    def forward(self, a, b):
        shape = (a.shape[0], a.shape[1], b.shape[2])
        if self.buf is None or self.buf.shape != shape or self.buf.device != a.device:
            self.buf = torch.empty(shape, dtype=a.dtype, device=a.device)
        return torch.baddbmm(self.buf, a, b, beta=0.0, alpha=self.scale, out=self.buf)
