# Honest candidate for problems/manual_softmax.py (out_buffer): x minus its row maximum written into a
# persistent buffer (torch.sub out=), exponentiated and normalised in place there.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.buf = None

    def forward(self, x):
        if self.buf is None or self.buf.shape != x.shape or self.buf.device != x.device:
            self.buf = torch.empty_like(x)
        torch.sub(x, x.amax(dim=1, keepdim=True), out=self.buf)
        self.buf.exp_()
        self.buf.div_(self.buf.sum(dim=1, keepdim=True))
        return self.buf
