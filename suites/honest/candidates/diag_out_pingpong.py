# Honest candidate for problems/diag_matmul.py (out_buffer): the row scaling written with
# torch.mul(out=) into one of two persistent buffers, alternating call by call (as a pipelined
# kernel would, so the previous result stays readable while the next is written).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.bufs = []
        self.turn = 0

    def forward(self, A, B):
        if not self.bufs or self.bufs[0].shape != B.shape or self.bufs[0].device != B.device:
            self.bufs = [torch.empty_like(B), torch.empty_like(B)]
        out = self.bufs[self.turn]
        self.turn ^= 1
        return torch.mul(A.unsqueeze(1), B, out=out)
